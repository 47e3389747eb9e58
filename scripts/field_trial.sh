#!/usr/bin/env bash
# Field trial (issue #55): `cargo perfdiff` at default settings on real repositories at pinned
# commits, each a real pull request with a published performance claim or an obviously local
# change, as a new user would run it. Not part of the test suite: it clones and takes long.
# Nothing of the trial repositories is kept in this project: they are cloned at run time.
# Results go to docs/design/field-trials.md by hand, with the figures this script prints.
#
# Usage: scripts/field_trial.sh [TRIAL|GROUP...]  (no TRIAL: every trial below; a GROUP names
#   several: `unseen`, `newcomer`, `newcomer10`, `newcomer11`, `newcomer12`, `newcomer12b`, `newcomer13`, `newcomer14`, `newcomer15`, `newcomer15b`, `newcomer15c`, `newcomer16`, `newcomer16b`, `newcomer17`, `newcomer17b`, `newcomer17c`, `newcomer18`, `newcomer18b`, `newcomer18c`, `newcomer19`, `newcomer19b`, `newcomer19c`, `lead19`, `newcomer20`, `newcomer20b`, `newcomer20c`, `cassert` and `newcomer21`, the
#   repositories first
#   tried on 2026-11-29 and 2026-11-30)
#   MIRRORS=DIR    clone DIR/<owner>+<name>/repo instead of https://github.com/<owner>/<name>
#   OUT=DIR        where clones, reports and logs go (default: target/field-trials)
#   PERFDIFF=BIN   the cargo-perfdiff executable to run (default: `cargo perfdiff`)
#   LIST_ONLY=1    run each trial's `--list` only (what a run would measure, and why), no comparison
# Each trial runs `--list` first (what a run would measure, and why), then the comparison.
# Run it under ../shared/tools/quiet on a quiet machine: the wall-time split counts only then.
#
# A clone whose commits lack some blobs (a mirror that left out large files) is compared at
# rebuilt commits: the same trees without those files, with fixed author and dates, so the
# rebuilt hashes are the same on every machine; the script says which files it left out.
#
# A clone's submodules are initialised at the trial's head as a user would (`git submodule update
# --init`), from MIRRORS where it holds them (rust-lexical reads its benchmark data from one);
# cargo-perfdiff gives each side the submodule commit its tree names.
#
# A base or head written `revert X on Y` is commit Y with the change of commit X undone, built
# the same way (fixed author, Y's dates, parent Y): a real change measured on a later tree, such
# as a commit of a crate no benchmark uses on a tree whose lock has a newer harness. A commit the
# clone lacks is looked for in the pull requests' heads (`refs/pull/*/head`).
set -euo pipefail

# name | repository | base | head | manifest (in the repository) | toolchain | extra arguments | claim
TRIALS='
chrono-version|chronotope/chrono|c14b4599~1|c14b4599|bench/Cargo.toml|||version bump only (0.4.43 → 0.4.44): every benchmark unchanged (same code)
chrono-rfc3339|chronotope/chrono|ebc808e8~1|ebc808e8|bench/Cargo.toml||--bench chrono|"faster RFC 3339 parsing without Parsed": the RFC 3339 parse benchmark improved, the others unchanged
polyval-cpb|RustCrypto/universal-hashes|60e01af921bd~1|60e01af921bd|benches/Cargo.toml||--features cpb|"use avx+pclmulqdq features" (#317, no speed claim, a local change to the x86 backend and its CPU check), measured in cycles (criterion-cycles-per-byte)
anstyle-divan|rust-cli/anstyle|fb843c5f55be~1|fb843c5f55be|Cargo.toml|||"perf: avoid using write! macro with single str" (#228) in anstyle'"'"'s Display impls: divan benchmarks of anstream and anstyle-parse, none of which renders a style
httparse-avx2|seanmonstar/httparse|47853d73f383~1|47853d73f383|Cargo.toml||-- ^req/ ^req_short/ ^resp/ ^resp_short/ uri/uri_1024b header/value_1024b version/http11 method/get|"perf(simd): avx2 fallback to swar instead of sse4.2" (#181), "massive implications on the default runtime perf"; build script probing rustc, LTO and one codegen unit in the bench profile
kupyna-ttable|RustCrypto/hashes|81ae18a6174e~1|81ae18a6174e|Cargo.toml|nightly||"T-table lookup for fast kupyna hashing" (#778), "a significant 8x speedup"; 23 members with libtest #[bench] targets
anstyle-roff|rust-cli/anstyle|revert 3f497444 on ce8c6e125b06|ce8c6e125b06|Cargo.toml|||"perf(roff): Remove extra allocations" (3f497444) in anstyle-roff, which no benchmark uses, on the tree of #243 (divan 0.1.21, listed with --format terse): every benchmark unchanged (same code)
useg-version|unicode-rs/unicode-segmentation|f6f5f21~1|f6f5f21|Cargo.toml|||version bump only (1.12.0 → 1.13.0, `Cargo.toml` only; no lock file): every benchmark unchanged (same code)
useg-ascii|unicode-rs/unicode-segmentation|af87c8d~1|af87c8d|Cargo.toml|||"Add ascii fast path for unicode_word_indices and unicode_words" (#147): word benchmarks on ASCII texts faster, chars and word_bounds unreached; texts read from benches/texts at run time; adds a dev-dependency (proptest); no lock file
toml-release|toml-rs/toml|4ec099fe~1|4ec099fe|Cargo.toml|||version bump only (toml_parser 1.1.2+spec-1.1.0 → 1.1.3+spec-1.1.0 and the requirements on it; Cargo.lock, CHANGELOG): every benchmark unchanged (same code); divan, a virtual workspace of 8 members
toml-lexer|toml-rs/toml|26eb1571~1|26eb1571|Cargo.toml|||"perf(parser): Reduce over allocation by better tokens/byte ratio" (#1193, `Lexer::into_vec`): divan benchmarks that lex with toml_parser (toml, toml_edit, toml_parser decoded and events) faster, the others (toml_parser tokens, toml 0.5) unchanged; LTO and one codegen unit in the release profile, which bench inherits
bstr-version|BurntSushi/bstr|cabbfe3~1|cabbfe3|bench/Cargo.toml|||version bump only (1.12.2 → 1.12.3, no lock file): every benchmark unchanged (same code); bench package a workspace member, data compiled in with include_bytes!
bstr-count|BurntSushi/bstr|bf0bf16~1|bf0bf16|bench/Cargo.toml|||"perf: implement Iterator::count for Chars" (#223): new chars_count benchmarks only in head, the other chars benchmarks unchanged (same code)
png-paeth|image-rs/image-png|850581b22298~1|850581b22298|Cargo.toml||--bench decoder -- decode/|"Improve Paeth auto-vectorization by changing how loop state is maintained" (#635): decoding real PNG files read from tests/benches/ at run time
rand-version|rust-random/rand|1540ea327e~1|1540ea327e|benches/Cargo.toml|||version bump only (0.10.1 → 0.10.2: Cargo.toml, Cargo.lock, CHANGELOG): every benchmark unchanged (same code); bench package of its own `[workspace]` with `path = ".."`, no lock file, 10 bench targets (criterion-cycles-per-byte a dev-dependency none uses)
rand-weighted|rust-random/rand|cf4f73e395~1|cf4f73e395|benches/Cargo.toml|||"sample_efraimidis_spirakis: error on more than amount non-finite weights" (#1814, a local change to `seq::index`): the `weighted_sample_indices_*` benchmarks reach it, every other benchmark unchanged (same code)
html5ever-version|servo/html5ever|0e99c57~1|0e99c57|Cargo.toml|||version bump only (0.37.0 → 0.37.1 in `[workspace.package]` and the requirements on the path dependencies, no lock file): every benchmark unchanged (same code); virtual workspace of 5 members, code generated by `web_atoms/build.rs`, HTML files read from `data/bench/` at run time
html5ever-serialize|servo/html5ever|a32b0d2~1|a32b0d2|Cargo.toml|||"Improve serialization performance with memchr" (#740, adds memchr to the dependencies of html5ever): serialize benchmarks faster ("up to 95 %"), the tokenizer and tendril benchmarks unreached
base64-version|marshallpierce/rust-base64|069bf70~1|069bf70|Cargo.toml|||version bump only (0.23.0 → 0.23.1: Cargo.toml, Cargo.lock, release notes): every benchmark unchanged (same code); one package, one criterion target of 104 benchmarks (`BenchmarkId` sizes), `debug = true` in the bench profile
base64-decode|marshallpierce/rust-base64|5d70ba7~1|5d70ba7|Cargo.toml|||"Decode main loop improvements" (#269, with the 0.21.7 → 0.22.0 bump): "decoding is somewhat faster (5-10%)"; the decode benchmarks reach it, the encode ones do not; no lock file
winnow-version|winnow-rs/winnow|7539ec0f~1|7539ec0f|Cargo.toml|||version bump only (1.0.3 → 1.0.4: Cargo.toml, Cargo.lock, CHANGELOG and the changelog link in `src/lib.rs`'"'"'s crate docs): every benchmark unchanged (same code); 10 criterion targets, 5 of them `examples/*/bench.rs`, a JSON file compiled in with `include_str!`, LTO and one codegen unit in the bench profile
winnow-hexuint|winnow-rs/winnow|1d1e5512~1|1d1e5512|Cargo.toml|||"perf(ascii): optimize hex_uint hot path" (#885, `ascii::hex_uint` only): no benchmark parses a hexadecimal number, every benchmark unchanged (same code)
qxml-version|tafia/quick-xml|6242da0~1|6242da0|Cargo.toml|||version bump only (0.38.4 → 0.39.0: Cargo.toml, Changelog.md): every benchmark unchanged (same code); two criterion targets, test documents compiled in with include_str!, LTO and `debug = true` in the bench profile, no lock file, a bench package of its own (`compare/`, `path = ".."`) beside it
qxml-attr|tafia/quick-xml|be8138f~1|be8138f|Cargo.toml|||"Minor attribute performance related changes" (#462: `BytesStart::try_get_attribute` skips the duplicate check, "almost twice as fast without the check"): `attributes/try_get_attribute` faster, every benchmark that does not call it unchanged (same code); the 2022 tree, criterion 0.3, edition 2018, no lock file
qxml-compare-version|tafia/quick-xml|6242da0~1|6242da0|compare/Cargo.toml|||the same version bump (0.38.4 → 0.39.0) seen from `compare/`, a bench package outside the workspace (`quick-xml = { path = ".." }`, criterion 0.8, eleven other XML parsers, LTO and `debug = true`, no lock file): every benchmark unchanged (same code)
hb-version|rust-lang/hashbrown|06223043~1|06223043|Cargo.toml|nightly||version bump only (0.16.0 → 0.16.1 by release-plz: Cargo.toml, CHANGELOG.md): every benchmark unchanged (same code); one package, three libtest `#[bench]` targets (nightly), `inline-more` on by default, no lock file
hb-get|rust-lang/hashbrown|fe72a08e~1|fe72a08e|Cargo.toml|nightly||"Un-bloat get_inner functions to restore lookup performance" (#639: `HashMap::get`, `get_mut`, `get_key_value`, `contains_key` … inline the lookup instead of calling `get_inner`): the lookup benchmarks (and the set operations, which call `contains_key`) faster, insert, iter and clone unreached
b3-version|BLAKE3-team/BLAKE3|77b257e~1|77b257e|Cargo.toml|nightly||version bump only (1.8.5 → 1.8.6: Cargo.toml, `c/blake3.h` and `c/CMakeLists.txt` of the C library, the lock of b3sum): every benchmark unchanged (same code); a build script that compiles x86 assembly (`c/*_unix.S`, cc) into the library, SIMD chosen at run time by CPU features, one libtest `#[bench]` target (nightly), no lock file
b3-asslice|BLAKE3-team/BLAKE3|308b95d~1|308b95d|Cargo.toml|nightly||"Add `Hash::as_slice()`" (a new accessor no benchmark calls, and a unit test): every benchmark unchanged (same code)
av-version|bluss/arrayvec|0cb664c~1|0cb664c|Cargo.toml|||version bump only (0.7.7 → 0.7.8, `Cargo.toml` only; no lock file): every benchmark unchanged (same code); one package, two `bencher` targets (`harness = false`), `debug = true` in the bench profile
av-clone|bluss/arrayvec|8664b53~1|8664b53|Cargo.toml|||"Optimize ArrayVec::clone() to behave like Copy when T: Copy" (#315, "Copy past len in Clone for simpler asm"; the PR reports clone_8 4 → 1 ns, clone_16 7 → 3 ns, clone_512 327 → 199 ns): the five `clone_*` benchmarks faster, the `extend` and `arraystring` ones (no clone) unchanged (same code); `bencher` harness
sj-version|simd-lite/simd-json|7ab8af6~1|7ab8af6|Cargo.toml|||version bump only (0.17.2 → 0.17.3, `Cargo.toml` only; no lock file): every benchmark unchanged (same code); criterion benchmarks that read `data/*.json` at run time (relative paths), pin themselves to a CPU (core_affinity) and set 20 s measurement times, LTO and one codegen unit in the bench profile
sj-unaligned|simd-lite/simd-json|dc1c593~1|dc1c593|Cargo.toml|||"unaligned writes for rust native and neon" (#462: `impls/native` and `impls/neon` stage 1 only): on x86 the native stage 1 is compiled in but runtime detection picks AVX2, so every benchmark unchanged (same code)
lex-version|Alexhuszagh/rust-lexical|ddfc0f6~1|ddfc0f6|extras/benchmark/Cargo.toml|||version bump (lexical 1.0.5 → 1.0.6 in seven manifests, lexical-util'"'"'s requirements, and three deprecated features no one enables removed from lexical-util): every benchmark unchanged (same code); `extras/benchmark/` a workspace of its own (5 members, 15 criterion targets) with `path = "../../../lexical-*"` dependencies outside it, data read at run time from a git submodule (`extras/benchmark/data`) found from the executable'"'"'s path (the parent of its `target` ancestor)
lex-inline|Alexhuszagh/rust-lexical|57efda6^1|57efda6|extras/benchmark/Cargo.toml|||"Fix performance issues in float parsing" (#210, labels performance and regression: "a lack of inlining on the Eisel-Lemire algorithm", `#[inline]` in lexical-parse-float): the parse-float benchmarks faster, the parse-integer, write-integer, write-float and algorithm ones (no lexical-parse-float) unchanged (same code)
itt-version|rust-itertools/itertools|a1213e1~1|a1213e1|Cargo.toml|||version bump only (0.13.0 → 0.14.0: Cargo.toml, README.md, CHANGELOG.md): every benchmark unchanged (same code); one package, ten criterion targets (criterion 0.4, `specializations` a macro-generated family of hundreds), `debug = true` in the bench profile, no lock file
itt-mergeby|rust-itertools/itertools|fb48ff5~1|fb48ff5|Cargo.toml|||"Implement `MergeBy::fold`" (#920, `src/merge_join.rs` only): `merge_by/fold` "-75 %"; the other `merge*` benchmarks that fold through `MergeBy` may reach it, every benchmark of another adaptor unchanged (same code)
uuid-version|uuid-rs/uuid|b4db015~1|b4db015|Cargo.toml|nightly||version bump only (1.23.0 → 1.23.1: Cargo.toml, rng/Cargo.toml (the internal `uuid-rng-internal-lib` path dependency), README.md, and in `src/lib.rs` the crate docs and `html_root_url`): every benchmark unchanged (same code); libtest `#[bench]` targets (nightly), two of them `#![cfg(feature = ...)]` and empty by default, a workspace of 5 members, no lock file
uuid-version-v4v7|uuid-rs/uuid|b4db015~1|b4db015|Cargo.toml|nightly|--features v4,v7|the same version bump with `--features v4,v7`, which brings in the `v4` and `v7` bench targets (random and time-based UUIDs: `getrandom` and the clock at run time): every benchmark unchanged (same code)
uuid-hash|uuid-rs/uuid|3c1579d~1|3c1579d|Cargo.toml|nightly||"Replace derive(Hash) with manual impl in Uuid" (#824, for issue #775 "Hash faster by not using derive"): no benchmark hashes a Uuid, every benchmark unchanged (same code)
url-version|servo/rust-url|d6ea13c~1|d6ea13c|Cargo.toml|||version bump only (url 2.5.7 → 2.5.8, `url/Cargo.toml` only; no lock file): every benchmark unchanged (same code); a virtual workspace of 6 members, `bencher` targets in two of them (url `parse_url`, idna `all`; idna does not depend on url)
url-host|servo/rust-url|7cff874~1|7cff874|Cargo.toml|||"perf: remove heap allocation in parse_host" (#1021, in url and idna: `long` 302 → 271 ns/iter): the url `parse_url` benchmarks reach it; idna'"'"'s `to_ascii*` benchmarks reach `Uts46::to_ascii`, which now calls the new `to_ascii_from_cow`; the `to_unicode*` ones are unreached
nb-version|rust-num/num-bigint|38b68f6~1|38b68f6|Cargo.toml|nightly|--features rand_0_10|version bump only (0.5.0 → 0.5.1: Cargo.toml, RELEASES.md; no lock file): every benchmark unchanged (same code); one package, four libtest `#[bench]` targets (nightly), three of them `required-features = ["rand_0_10"]`, and `shootout-pidigits` with `harness = false` (a plain `main`)
nb-sqrt|rust-num/num-bigint|42d1dbe|3e3bb86|Cargo.toml|nightly|--features rand_0_10|"implement Karatsuba Square Root" (#353, from its first commit "Add bigger sqrt benches" to the merge: `big16k_sqrt` 61,008 → 10,238 ns/iter, `big32k_sqrt` 208,549 → 29,383, `big128_sqrt` 70 → 12.5, `big64_sqrt` 6.52 → 6.52): the `*_sqrt` benchmarks of `roots` faster, `big64_sqrt` unchanged; `big15k_sqrt` and `big17k_sqrt` only in head; the cube and nth-root benchmarks and the other targets unreached
pc-version|pulldown-cmark/pulldown-cmark|65c5159~1|65c5159|Cargo.toml|||version bump only (pulldown-cmark 0.12.0 → 0.12.1: `pulldown-cmark/Cargo.toml`, `Cargo.lock`): every benchmark unchanged (same code); a workspace of 5 members whose default members include the bench package (`bench/`, 3 criterion targets, group names with newlines and spaces, Markdown files compiled in), LTO, one codegen unit and `panic = "abort"` in the release profile
pc-lto|pulldown-cmark/pulldown-cmark|cc18f0e^1|cc18f0e|Cargo.toml|||"perf: cargo-wizard default recommendations for runtime perf" (#868: `lto = true`, `codegen-units = 1`, `panic = "abort"` added to the release profile, which bench inherits, and README; the PR shows criterion'"'"'s "Performance has improved", e.g. `pathological_codeblocks1/3` −4.1 %): a profile change, so every benchmark'"'"'s code changes and every one is measured; benchmarks in the library package (`pulldown-cmark/benches/`)
pc-version-013|pulldown-cmark/pulldown-cmark|f17d98a~1|f17d98a|Cargo.toml|||version bump only (0.12.3 → 0.13.0), after "Make `bench` non-default member of the workspace": as a new user would run it, at the root without `-p`; `--workspace` would build `dos-fuzzer` (mozjs)
ch-version|DaniPopes/const-hex|1143588~1|1143588|Cargo.toml|||version bump only (1.18.0 → 1.18.1, `Cargo.toml` only; no lock file): every benchmark unchanged (same code); one package, one divan target through a renamed dependency (`divan = { package = "codspeed-divan-compat" }`), hex data files compiled in with include_bytes!, thin LTO and `panic = "abort"` in the release profile, which bench inherits through `profiling`
ch-avx2dec|DaniPopes/const-hex|22291dc~1|22291dc|Cargo.toml|||"perf: single-pass AVX2 decode with validation" (#41, `src/arch/x86.rs` and `src/arch/generic.rs`: decode validates while it converts instead of checking first): the `decode/const_hex/*` and `decode_to_slice/const_hex/*` benchmarks faster on an AVX2 CPU, the other crates'"'"' benchmarks (faster_hex, hex, hex_simd, naive, rustc_hex) and const-hex'"'"'s `check`, `encode`, `encode_to_slice` and `format` unreached
snap-version|BurntSushi/rust-snappy|742c9cd~1|742c9cd|bench/Cargo.toml|||version bump only (1.1.0 → 1.1.1, `Cargo.toml` only; no lock file): every benchmark unchanged (same code); a build script that writes the tag lookup table and the CRC tables the library includes from OUT_DIR, the bench package (`bench/`, criterion 0.3) a workspace member, corpus files compiled in with include_bytes!, `debug = true` in the release profile
snap-crc|BurntSushi/rust-snappy|22c217f~1|22c217f|bench/Cargo.toml|||"perf: accelerate CRC32C with SSE4.2 when possible" (closes #19 and #20, "fairly marginal performance gains"; the build script no longer writes `CASTAGNOLI_POLY` into the generated CRC table file): the benchmarks compress and decompress raw Snappy, which has no CRC; the crate'"'"'s other functions (`snap::bytes::read_varu64`, the `loadu_*` loads) are compiled differently from the same source, in their timed loops, so every benchmark is measured
sv-version|servo/rust-smallvec|7fa951f~1|7fa951f|Cargo.toml|nightly||version bump only (1.8.1 → 1.9.0, `Cargo.toml` only; no lock file): every benchmark unchanged (same code); one package, one libtest `#[bench]` target (nightly), no dependency but bincode (dev)
sv-insert|servo/rust-smallvec|b233568~1|b233568|Cargo.toml|nightly||"Optimize `insert` for the case where `index == len`" (b233568, nnethercote: skips a zero-length `copy`, "speeds up rustc … by 2% on one benchmark"): `bench_insert` and `bench_insert_small` reach it; the `*_vec` twins (the same code on std'"'"'s `Vec`) and the push, remove, extend, from_slice and macro ones do not
fr-release24|smol-rs/fastrand|v2.3.0|v2.4.0|Cargo.toml|nightly||release gate, annotated tag v2.3.0 → lightweight tag v2.4.0 (15 commits: MSRV 1.36 → 1.63, dev-dependencies rand 0.8 → 0.9 and wyhash 0.5 → 0.6, "Improve quality of f32/f64 generation" #103, `Rng::with_seed` const; no lock file): the `*_wyhash` benchmarks run rand/wyhash code that changed, `f32_fastrand` only in head; libtest `#[bench]` (nightly)
fr-release25|smol-rs/fastrand|v2.4.0|v2.5.0|Cargo.toml|nightly||release gate, lightweight tags v2.4.0 → v2.5.0 (7 commits: getrandom 0.3 → 0.4, rand 0.9 → 0.10 in dev-dependencies, benches adapted): the `*_wyhash` benchmarks run rand code that changed, the fastrand ones unreached unless `src/` changed their loop
ahash-release|tkaitchuck/aHash|v0.8.5|v0.8.11|Cargo.toml|||release gate, lightweight tags v0.8.5 → v0.8.11 (28 commits on the release branch: "Change update function to use decryption rather than encryption" #173, "Strengthen fastpath for u64 hashes" #211/#215, zerocopy/once_cell bumps, dev-dependency hashbrown 0.12 → 0.14 and new pcg-mwc, smallvec; build script; fat LTO, one codegen unit; criterion 0.3; no lock file): aHash benchmarks measured, those of the other hashers (fnv, fxhash, seahash, siphash) unchanged (same code)
itoa-release18|dtolnay/itoa|1.0.17|1.0.18|Cargo.toml|||release gate, annotated tags 1.0.17 → 1.0.18 ("Optimize 128-bit integer formatting" #68, jhpratt; a pointer simplification #67): `u128[*]/itoa` faster, `*/std::fmt` unchanged (same code); criterion 0.8, no lock file
itoa-release16|dtolnay/itoa|1.0.15|1.0.16|Cargo.toml|nightly||release gate, annotated tags 1.0.15 → 1.0.16 (edition 2018 → 2021, MSRV 1.36 → 1.68, "Switch from cargo bench to criterion": libtest `#[bench]` in base, criterion 0.8 in head; the algorithm synced from libcore, "Copy fast divmod100 from zmij"): no benchmark has the same id on both sides
cu-version|uutils/coreutils|e05f379eb4~1|e05f379eb4|Cargo.toml||--package uu_wc|version bump only ("prepare release 0.10.0": the workspace version and the 100-odd `uu_*`/`uucore` requirements in Cargo.toml, Cargo.lock, fuzz/): every benchmark unchanged (same code); a virtual-like workspace of ~110 members (root package `coreutils`), one divan target per utility through `codspeed-divan-compat`, `uucore` with a build script; the wc benchmarks as a user who wants one utility'"'"'s would run them
cu-wc-splice|uutils/coreutils|bd69fe9363~1|bd69fe9363|Cargo.toml||--package uu_wc|"wc: improve wc -c perf - 1.67X faster" (#11591: `count_bytes_using_splice` sets the pipe size and splices more at once): only a FIFO input reaches it; the benchmarks read regular files, whose size `wc -c` takes from fstat, so every benchmark unchanged (same code)
cu-root|uutils/coreutils|e05f379eb4~1|e05f379eb4|Cargo.toml|||the same release at the workspace root without --package, as a new user would first type it: the root package `coreutils` has no bench target
cb-skiplist-version|crossbeam-rs/crossbeam|3aa2598e~1|3aa2598e|Cargo.toml|nightly|--workspace|version bump of one member ("Prepare for the next release": crossbeam-skiplist 0.1.2 → 0.1.3, Cargo.toml and CHANGELOG): every benchmark unchanged (same code); a workspace of 8 members, libtest #[bench] targets (nightly) in crossbeam-channel, -epoch, -skiplist and -utils, multi-threaded benchmarks (16 threads), no lock file
cb-epoch-falseshare|crossbeam-rs/crossbeam|4bb27dbe~1|4bb27dbe|Cargo.toml|nightly|--workspace|"epoch: Fix false sharing in Local struct" (#1026, issue #1020: perf c2c shows cache-line contention in `Global::try_advance`; `Local::epoch` moved last and `CachePadded`): the epoch benchmarks (pin, defer, flush; `multi_pin` and `multi_defer` with 16 threads) and skiplist'"'"'s (which pins) reach it; channel'"'"'s and utils'"'"' `atomic_cell` do not depend on epoch: unchanged (same code)
cb-root|crossbeam-rs/crossbeam|3aa2598e~1|3aa2598e|Cargo.toml|nightly||the same bump at the root without --workspace, as a new user would first type it: the root package `crossbeam` has no bench target
crc-version|srijs/rust-crc32fast|dbf4f76~1|dbf4f76|Cargo.toml|||version bump only (1.4.2 → 1.5.0, `Cargo.toml` only; no lock file): every benchmark unchanged (same code); one package, a build script probing `rustc --version`, one `bencher` target whose benchmarks fill their input with `rand::thread_rng()` in every process
crc-dword|srijs/rust-crc32fast|d5c123d~1|d5c123d|Cargo.toml|||"consolidate dword load in baseline implementation" (#55, `baseline::update_fast_16` only: "a 5-10% throughput increase in the benchmarks"): the `*_baseline` benchmarks faster; the `*_specialized` ones (pclmulqdq, which calls `update_fast_16` only for inputs under 128 bytes and tails) and `combine` unreached
crc-combine|srijs/rust-crc32fast|f8dd0a1~1|f8dd0a1|Cargo.toml|||"much faster combine function" (`src/combine.rs`; `bench_combine` now combines random hashers and lengths instead of fixed ones, drawn anew in every process): `bench_combine` measured (its own code changed), the four update benchmarks unchanged (same code)
rsb-version|CarlKCarlK/range-set-blaze|d0e7bf8a~1|d0e7bf8a|Cargo.toml||--bench bench_map -- ^map_worst/ ^map_union_two_sets/ ^map_every_op_blaze/ ^map_insert_speed/|version bump only (0.5.0 → 0.5.1: Cargo.toml, Cargo.lock, docs/CHANGELOG.md): every benchmark unchanged (same code); a workspace of 5 members (wasm and embedded tests among them), the package a dev-dependency of itself (`path = "."`, `features = ["test_util"]`), two criterion targets of 500 benchmarks (each traced under valgrind: over an hour on the busy machine), so four groups of `bench_map` alone, a build script turning `BUILDFEATURES` into cfgs
rsb-bitor|CarlKCarlK/range-set-blaze|760e6c76~1|760e6c76|Cargo.toml||--bench bench_map -- ^map_worst/ ^map_union_two_sets/ ^map_every_op_blaze/ ^map_insert_speed/|"make |= faster" (`RangeMapBlaze`'"'"'s `BitOrAssign` takes the small side into the large one; `RangeSetBlaze`'"'"'s loop written `&other.btree_map` instead of `.iter()`; new benchmarks in `benches/bench_map.rs`, group `map_union_label`, only in head): four groups of `bench_map` alone, as in `rsb-version`: `map_union_two_sets` (`map10 |= map00`, `map00 |= map1`) faster, `map_worst`, `map_every_op_blaze` and `map_insert_speed` unchanged (same code)
nom-version|rust-bakery/nom|2cec1b3e~1|2cec1b3e|benchmarks/Cargo.toml|||version bump only (v8.0.0, #1797: nom 8.0.0-beta.1 → 8.0.0, nom-language 0.1.0-alpha.1 → 0.1.0 with doc comments of `precedence` reworded, CHANGELOG, CI): every benchmark unchanged (same code); `benchmarks/` a package outside any workspace (`nom = { path = "../" }`, the dev-dependency `nom-language = { path = "../nom-language" }` itself depending on `..`), criterion 0.5 and CodSpeed'"'"'s criterion fork, jemalloc built by `jemalloc-sys`'"'"'s build script as the global allocator, no lock file
nom-docs|rust-bakery/nom|a44b52ed~1|a44b52ed|benchmarks/Cargo.toml||--bench arithmetic --bench number --bench http|"Fix documented examples to not use the deprecated is_alphabetic function" (#1807, doc comments of `src/bytes/mod.rs` only): every benchmark unchanged (same code); three of the eight bench targets, whose builds are the shortest (each side recompiles nom and every bench target)
dv-version|nvzqz/divan|52f9d49~1|52f9d49|Cargo.toml||--package examples --bench math --bench collections --bench sort --bench atomic|version bump only ("Release v0.1.21": divan 0.1.20 → 0.1.21 and divan-macros'"'"' exact requirement, README, CHANGELOG): every benchmark unchanged (same code); divan'"'"'s own examples package (path dependency on the harness, no lock file), nanosecond benchmarks with `args`, `types` × `args`, `#[ignore]` and `threads = [0, 1, 4, 16]` groups
dv-alloc|nvzqz/divan|fb269a9~1|fb269a9|Cargo.toml||--package internal_benches|"Optimize `AllocProfiler` thread local usage" (fb269a9, divan 0.1.7: `ThreadAllocInfo` owned by its thread, unsynchronized arithmetic, stored inline in `thread_local!`): "the `alloc::thread_info::tally_alloc` benchmark in CI has gone from 5-9ns to 2ns"; divan'"'"'s internal benchmarks (feature `internal_benches`, registered in `src/` with `#[crate::bench(crate = crate, threads = [0, 1, 2, 4, 16])]`), `AllocProfiler` the global allocator, so the harness measured is the harness changed
clap-version|clap-rs/clap|4a622b434~1|4a622b434|Cargo.toml||--package clap_bench|version bump only ("chore: Release": clap and clap_builder 4.6.5 → 4.6.6 and the exact requirement between them, clap_bench'"'"'s requirement, clap_complete, clap_complete_nushell, clap_mangen, Cargo.lock, CHANGELOGs, the changelog link in `src/lib.rs`'"'"'s docs): every benchmark unchanged (same code); a workspace of 7 members, clap_bench'"'"'s five divan targets (`empty`, `simple`, `complex`, `rustup`, `ripgrep`: building commands, parsing arguments, rendering help), LTO, one codegen unit and `panic = "abort"` in the release profile, which bench inherits
jiff-version|BurntSushi/jiff|6019162~1|6019162|bench/Cargo.toml|||version bump only (0.2.20 → 0.2.21: the versions of jiff and jiff-static and jiff'"'"'s `=0.2.20` requirement on jiff-static, two `Cargo.toml`s): every benchmark unchanged (same code); `bench/` a package of its own `[workspace]` with `jiff = { path = ".." }` (features `static`, the proc-macro jiff-static, and `tzdb-bundle-always`), criterion 0.5 beside chrono, time and chrono-tz, no lock file; the whole suite (every group of the one bench target)
jiff-tsdt|BurntSushi/jiff|d57657a~1|d57657a|bench/Cargo.toml||-- ^timestamp/|"perf: optimize timestamp -> datetime conversion" (#518, `ITimestamp::to_datetime` divides unsigned after a positive bias, in jiff and its copy in jiff-static): "the timestamp/to_civil_datetime_offset_conversion benchmark improves by more than 10%, perhaps closer to 20%"; the `timestamp/*/jiff` benchmarks that convert to a civil datetime reach it, the chrono and time ones do not
jiff-weekday|BurntSushi/jiff|df6885d~1|df6885d|bench/Cargo.toml||-- ^date/|"civil: fast weekday calculation" (#591, `itime.rs`'"'"'s weekday from the epoch day, in jiff and jiff-static'"'"'s copy; June 2026): the PR reports `date/nth_weekday/next/jiff` 8.4 → 6.4 ns, `…/second-next/jiff` 8.5 → 6.4 ns, `date/nth_weekday_of_month/last/jiff` 2.7 → 2.2 ns (M4 Pro); the `date/*/jiff` benchmarks that take a weekday reach it, the chrono and time ones run none of jiff'"'"'s code in their loop
fmt-der-version|RustCrypto/formats|77845440~1|77845440|Cargo.toml|nightly|--package spki --features alloc|version bump (der 0.8.0-rc.12 → 0.8.0, and every member'"'"'s requirement on it, spki'"'"'s `der = "0.8.0-rc.10"` → `"0.8"`; Cargo.lock, CHANGELOG): every benchmark unchanged (same code); a workspace of 27 members whose `[patch.crates-io]` puts each member in place of its crates.io release (spki'"'"'s `der` has no `path`: the patch resolves it to `./der`), libtest `#[bench]` (nightly) in spki behind `#![cfg(feature = "alloc")]`
fmt-der-setof|RustCrypto/formats|787398bb~1|787398bb|Cargo.toml|nightly|--package spki --features alloc|"der: replace O(n^2) SetOf sort with O(n log n) sort" (#2345, `der_sort`: "a ~246 KB reverse-sorted SET OF with 18k elements took roughly 11 seconds to decode"): spki'"'"'s benchmarks decode and encode one SubjectPublicKeyInfo, no SET OF: unchanged (same code)
fmt-der-version-all|RustCrypto/formats|77845440~1|77845440|Cargo.toml|nightly|--package spki --package base16ct --package base64ct --package tls_codec --features spki/alloc|the same version bump with every member that has a bench target: base16ct'"'"'s and base64ct'"'"'s libtest benchmarks and tls_codec'"'"'s criterion ones do not depend on der: every benchmark unchanged (same code)
ring-version|briansmith/ring|f74b5a2aa~1|f74b5a2aa|bench/Cargo.toml|||version bump only (0.17.14 → 0.17.16000: Cargo.toml'"'"'s `version` and `links`, Cargo.lock): every benchmark unchanged (same code), though the build script prefixes every C and assembly symbol with `ring_core_0_17_<patch>_` from the version; a build script compiling C and perlasm assembly (cc), `bench/` a non-default workspace member (criterion 0.8, RSA keys compiled in with include_bytes!)
ring-digest-update|briansmith/ring|a83de3c2c~1|a83de3c2c|bench/Cargo.toml|||"digest internals: Optimize `Context::update`" ("The assertion in `BlockContext::update` causes the compiler to generate division instructions", `src/digest.rs` and `src/hmac.rs`): the digest benchmarks (`digest::oneshot::sha256/0`, sha384, sha512), and ECDSA and RSA (which hash the message) may reach it, the AEAD and agreement ones unchanged (same code); criterion 0.5, no lock file
ring-aes-fallback|briansmith/ring|d86f18a67~1|d86f18a67|bench/Cargo.toml|||"aes fallback: Don'"'"'t inline `sub_bytes` or `shift_rows`" ("Help the optimizer optimize a bit", `src/aead/aes/fallback.rs` only): the portable AES runs only without AES-NI or SSSE3, so on this CPU no benchmark runs it: every benchmark unchanged (same code); no lock file
pcap-version|courvoif/pcap-file|ec3f598~1|ec3f598|Cargo.toml|||version bump only (3.0.0-rc1 → 3.0.0-rc.2, `Cargo.toml` only; no lock file): every benchmark unchanged (same code); criterion 0.8, one target of 8 benchmarks that read `benches/bench.pcap` and `benches/bench.pcapng` at run time (`std::fs::read`, relative to the package)
pcap-writer|courvoif/pcap-file|3d336d3~1|3d336d3|Cargo.toml|||"simplify code" (#35, `src/pcap/writer.rs` only): no benchmark writes, every benchmark unchanged (same code); criterion 0.4
pcap-bytes-used|courvoif/pcap-file|47ddbe8~1|47ddbe8|Cargo.toml|||"Add PcapNgReader::bytes_parsed() method" (#45: `ReadBuffer` counts the bytes it advances over, a field and an add in `advance`): the four `Reader`/`ReaderRaw` benchmarks (Pcap and PcapNg) run it, the four `Parser`/`ParserRaw` ones (no `ReadBuffer`) unchanged (same code)
lz4-safe-decomp|PSeitz/lz4_flex|9ea7f65~1|9ea7f65|Cargo.toml|||"perf: improve safe decompression performance 8-18%" (`src/block/decompress_safe.rs`): the `lz4_flex_rust` decompression benchmarks (block and frame) faster, compression and the `lz4_cpp` and `snap` rows unchanged (same code); criterion 0.4, lzzzz'"'"'s build script compiles the C lz4 (the `lz4_cpp` rows), a git dev-dependency (`lz-fear`: give it from a mirror with `url.<mirror>.insteadOf` in `GIT_CONFIG_GLOBAL` offline), the 10 MB `benches/dickens.txt` compiled in with include_bytes!, no lock file
tokio-version|tokio-rs/tokio|75fef53d0~1|75fef53d0|benches/Cargo.toml|||version bump only ("chore: prepare Tokio v1.53.1" #8303: tokio 1.53.0 → 1.53.1 in `tokio/Cargo.toml`, CHANGELOG, two READMEs; no lock file): every benchmark unchanged (same code); `benches/` a member package of a 9-member workspace with 17 criterion targets (runtimes, sync primitives, timers, fs, signals, copy; runtime threads in most), tokio with `full`; every target, as a user who names none
tokio-notify|tokio-rs/tokio|d4fb4bb9e~1|d4fb4bb9e|benches/Cargo.toml||--bench sync_notify --bench sync_watch --bench sync_mpsc --bench sync_rwlock|"sync: use acquire/release orderings in Notify" (#8325, `tokio/src/sync/notify.rs` only, for #6266 which frames it as performance; the PR: "a codegen census … found the hot paths instruction-identical on x86_64 and aarch64, with four cold stores changing on x86"): `sync_notify` and `sync_watch` (a watch channel notifies through Notify) reach it, `sync_mpsc` only where a channel closes (`notify_rx_closed`), `sync_rwlock` (batch semaphore) not at all
age-version|str4d/rage|7a854c9~1|7a854c9|Cargo.toml|stable|--package age|version bump only ("v0.12.1": age and rage 0.12.0 → 0.12.1 in the workspace dependency and two manifests, three lock files, CHANGELOGs, rage'"'"'s CLI test expectations): every benchmark unchanged (same code); criterion with a custom measurement (`Criterion<CyclesPerByte>`, criterion-cycles-per-byte 0.6, x86 only) and pprof'"'"'s profiler, a workspace of 4 members, edition 2024, a `rust-toolchain.toml` that pins 1.74.0 (older than edition 2024 needs: run on stable, as `cargo +stable perfdiff`)
age-asyncarmor|str4d/rage|e956b71~1|e956b71|Cargo.toml|stable|--package age|"age: Fix hang in impl AsyncBufRead for ArmoredReader on truncated files" (`age/src/primitives/armor.rs`, code behind the `async` feature, which no benchmark enables): every benchmark unchanged (same code)
age-armorws|str4d/rage|d57b2f5~1|d57b2f5|Cargo.toml|stable|--package age|"age: Reject whitespace within armored files" (`ArmoredReader` and one line of `protocol.rs`): a local change to parsing armored input; no benchmark reads armored input, the decrypt benchmarks go through `Decryptor`
age-prealloc|str4d/rage|b59c5dc~1|b59c5dc|Cargo.toml|stable|--package age|"Pre-initialize vectors when the capacity is known, or use arrays" (b59c5dc, PR #357 of 2022, merged 2023: `x25519.rs`, `scrypt.rs` and the ssh keys build their buffers as arrays): every benchmark wraps and unwraps file keys with x25519 (the throughput ones in their loop, the header parser in its set-up), so they reach it; the 2023 tree: criterion 0.3, criterion-cycles-per-byte 0.1 (`Criterion<CyclesPerByte>`), pprof 0.10, a lock file, a `rust-toolchain` of 1.59.0
tracing-version|tokio-rs/tracing|54ede4d5~1|54ede4d5|Cargo.toml||--package tracing-subscriber|version bump only ("chore: prepare tracing-subscriber 0.3.23" #3490: its version, CHANGELOG, README; no lock file): every benchmark unchanged (same code); a virtual workspace of 16 members, criterion 0.3 targets in four (tracing 10, tracing-subscriber 4, tracing-log, tracing-appender), tracing-subscriber'"'"'s four
tracing-envfilter|tokio-rs/tracing|3160dc14~1|3160dc14|Cargo.toml||--package tracing-subscriber --features env-filter|"subscriber: skip RwLock in EnvFilter span callbacks when no dynamic directives" (#3487, `filter/env/mod.rs` only: "under high concurrency this causes measurable lock contention"): the `filter` benchmarks whose EnvFilter has no span or field directive and that enter spans reach it; `fmt` (no EnvFilter) and `filter_log` unreached
pest-version|pest-parser/pest|d9b29b6~1|d9b29b6|Cargo.toml||--package pest_grammars --package pest|version bump only ("bump version to 2.9.0" (#1192): 2.8.6 → 2.9.0 in the seven members'"'"' `Cargo.toml`s and their requirements on each other; no lock file): every benchmark unchanged (same code); a virtual workspace of 8 members, the `pest_grammars` parsers generated by `#[derive(Parser)] #[grammar = "grammars/json.pest"]` (the proc macro pest_derive reads `.pest` files at compile time), criterion 0.5 in `grammars/benches` (json, http) and `pest/benches` (pratt, stack)
pest-json-ctrl|pest-parser/pest|f0998ee~1|f0998ee|Cargo.toml||--package pest_grammars|"Reject unescaped control characters in the JSON grammar" (#1190: `grammars/src/grammars/json.pest`'"'"'s `inner` rule only, no Rust source of the parser changed; a correctness change): the json benchmarks run the changed generated parser, the http ones a parser generated from a grammar the commit does not touch
pest-gen-docs|pest-parser/pest|f95efcd~1|f95efcd|Cargo.toml||--package pest_grammars|"fix: silence compiler and clippy warnings in tests and generator" (#1186: `generator/src/docs.rs`'"'"'s nested `if` as a match guard, code of the proc macro pest_derive that runs at compile time, and test files): the parsers it generates are the same, every benchmark unchanged (same code)
mg-version|abonander/mime_guess|805964f~1|805964f|Cargo.toml|||version bump only ("chore: bump version to 2.0.5", `Cargo.toml` only; no lock file): every benchmark unchanged (same code); a build script that reads the table `src/mime_types.rs` and writes the reverse map the library includes from OUT_DIR (`include!(concat!(env!("OUT_DIR"), …))`), criterion 0.3, two benchmarks whose set-up iterates the same table (`include!`d by the bench target too)
mg-outdir|abonander/mime_guess|98842a7~1|98842a7|Cargo.toml|||"Support running build script and compilation on different machines" (#96: the build script gives the generated file'"'"'s name instead of its absolute path, the library includes it from `concat!(env!("OUT_DIR"), …)`): the generated code is the same, every benchmark unchanged (same code)
mg-cda|abonander/mime_guess|90f3d09~1|90f3d09|Cargo.toml|||"Add an entry for .cda" (#98, one line of the data table `src/mime_types.rs`, which the library searches, the build script reads and both benchmarks iterate): a data change that both benchmarks reach (the table is longer and sorted differently), both measured
im-release|indexmap-rs/indexmap|2.12.0|2.12.1|Cargo.toml|nightly||release gate, annotated tags 2.12.0 → 2.12.1 ("Use the bucket API from hashbrown v0.16.1" #424: `src/map/core.rs`, `core/entry.rs`, `core/raw_entry_v1.rs`, hashbrown requirement 0.16 → 0.16.1; "Release 2.12.1"; no lock file): the IndexMap benchmarks that insert, look up or remove reach the changed core, the std HashMap twins and the ones that only iterate or index the entries unchanged (same code); libtest `#[bench]` (nightly), two targets of 61, a workspace of 4 members
im-version|indexmap-rs/indexmap|a96b9c7~1|a96b9c7|Cargo.toml|nightly||version bump only ("Release 2.12.1": Cargo.toml, RELEASES.md): every benchmark unchanged (same code)
http-release142|hyperium/http|v1.4.1|v1.4.2|benches/Cargo.toml|nightly||release gate, lightweight tags v1.4.1 → v1.4.2 (4 commits: `Uri` rejects DEL (#842, `uri/path.rs`), `uri::Builder` allows `*` paths (#843, `uri/builder.rs`), `impl Ord for Method` (#840)): the uri benchmarks that parse a path reach it, header_map, header_name, header_value and method unchanged (same code); `benches/` a package outside the workspace (`path = ".."`), five libtest targets (nightly) and one criterion 0.3 target (`header_name2`), no lock file
http-release140|hyperium/http|v1.3.1|v1.4.0|benches/Cargo.toml|nightly||release gate, lightweight tags v1.3.1 → v1.4.0 (20 commits: "perf: optimize capacity reservation in HeaderMap'"'"'s extend method" (#788), the FNV hasher inlined (#796), const `from_static`/`from_u16`, panic messages, `Extensions` debug): header_map benchmarks reach `header/map.rs`, uri ones `uri/authority.rs` and `uri/path.rs`; method unchanged (same code)
http-version|hyperium/http|82db5b8~1|82db5b8|benches/Cargo.toml|nightly||version bump only ("v1.4.2": Cargo.toml, CHANGELOG.md): every benchmark unchanged (same code)
bf-release|bitflags/bitflags|2.13.0|2.13.1|Cargo.toml|nightly||release gate, lightweight tags 2.13.0 → 2.13.1 (7 commits: "Lower the LLVM IR output of the generated output" (#492, `src/public.rs`, code the `bitflags!` macro expands into every flags type: `from_name`, `iter_names`), `Self` in flags, `const _ = !0`, MSRV, compile-fail stderr): the parse and format benchmarks run the macro'"'"'s generated code; libtest `#[bench]` (nightly), one target of 7, no lock file
bf-version|bitflags/bitflags|c1271c5~1|c1271c5|Cargo.toml|nightly||version bump only ("prepare for 2.13.1 release": Cargo.toml, CHANGELOG.md, README.md and the version in a `src/lib.rs` doc example): every benchmark unchanged (same code)
tv-release|Lokathor/tinyvec|v1.9.0|v1.10.0|Cargo.toml|nightly|--features alloc,real_blackbox|release gate, annotated tags v1.9.0 → v1.10.0 (3 commits: "bump MSRV to 1.55, drop generated Array impls" (#209: 9 754 lines of `impl Array for [T; N]`, one per length, removed for the const-generic impl), the changelog ("reduces build times"), "chore: Release"): no claim on run time; every benchmark'"'"'s `ArrayVec<[T; N]>` instantiates the one impl now, expected the same code; criterion 0.3, two targets with `required-features` (`alloc`; `real_blackbox`, criterion'"'"'s nightly black box), no lock file
tv-version|Lokathor/tinyvec|3c613ad~1|3c613ad|Cargo.toml|nightly|--features alloc,real_blackbox|version bump only ("chore: Release", `Cargo.toml` only): every benchmark unchanged (same code)
ttf-version|RazrFalcon/ttf-parser|e8f1454~1|e8f1454|benches/Cargo.toml|||version bump only (0.24.1 → 0.25.0: Cargo.toml, the C API'"'"'s Cargo.toml and header, CHANGELOG; no lock file): every benchmark unchanged (same code); `benches/` a package of its own (`ttf-parser = { path = "../" }`, LTO and one codegen unit in its release profile), two `bencher` targets that read `fonts/*.ttf` and `*.otf` at run time by paths relative to `benches/`
ttf-glyf|RazrFalcon/ttf-parser|933d292~1|933d292|benches/Cargo.toml|||"(glyf) ~7% faster outline parsing" (`glyf::resolve_coords_len` made branchless; the README'"'"'s glyf table 0.963 → 0.901 ms): the `outline_glyph_*_from_glyf` benchmarks faster, the CFF and CFF2 outlines, metrics and names unreached; the 2021 tree
ttf-avar|RazrFalcon/ttf-parser|1cac7c7~1|1cac7c7|benches/Cargo.toml|||"Only apply `avar` table to the variation axis being set" (#175: `Face::set_variation` and `avar::Table::map_coordinate`, a local change to one table): no benchmark sets a variation, every benchmark unchanged (same code)
gimli-version|gimli-rs/gimli|8e70a8a~1|8e70a8a|Cargo.toml||-- ^leb128 ^read::|version bump only ("Release 0.33.1" #873: gimli 0.33.0 → 0.33.1, CHANGELOG, and the `crates/examples` member'"'"'s object 0.37.1 → 0.39.0; no lock file): every benchmark unchanged (same code); one criterion 0.8 target whose benchmarks read `fixtures/self/debug_*` and `eh_frame` at run time (`$CARGO_MANIFEST_DIR/fixtures/self/`, or `.` without it), `debug = true` and one codegen unit in the bench profile, a workspace whose `default-members` holds the examples member; the filter keeps the 12 benchmarks of the first two `Criterion`s: from `bench_read`'"'"'s second on (the `.debug_*`, `.eh_frame` and convert ones) every fork hangs under a cargo-criterion runner, the first `Criterion`, shadowed, still holding criterion'"'"'s connection lock
gimli-cfi|gimli-rs/gimli|d2bd94a~1|d2bd94a|Cargo.toml||-- ^leb128 ^read::|"read/cfi: minor CIE/FDE parsing optimisation" (#866, `read/cfi.rs` only: "unlikely to make any difference"): the `.eh_frame` benchmarks reach it (they hang under any cargo-criterion runner, as every one after `bench_read`'"'"'s second `Criterion`), the LEB128 and `read::` ones unchanged (same code)
gimli-ehmode|gimli-rs/gimli|89dda40~1|89dda40|Cargo.toml|nightly||"Remove execution bit from fixtures/self/eh_frame permissions" (#444: the mode of a data file the `.eh_frame` benchmarks read, its content the same): every benchmark unchanged (same code); the 2019 tree, libtest `#[bench]` (nightly), no lock file
nd-version|rust-ndarray/ndarray|2cf23d6a~1|2cf23d6a|Cargo.toml|bootstrap||version bump only ("chore: Release", ndarray 0.17.1 → 0.17.2: `Cargo.toml`, `Cargo.lock`): every benchmark unchanged (same code); the root package of a workspace of 7 members with `default-members`, 12 libtest `#[bench]` targets (`#![feature(test)]`, built on stable with `RUSTC_BOOTSTRAP=1` as a user without nightly would; `par_rayon` behind `#![cfg(feature = "rayon")]`), `debug = true` in the bench profile
nd-iter-move|rust-ndarray/ndarray|27af8646~1|27af8646|Cargo.toml|bootstrap||"perf(iteration): use move instead of clone for iteration" (#1586, `Baseiter::next` takes the index instead of cloning it, `Dimension::next_for` takes it by `mut`): "a 74% speedup in iteration for dynamic-dimensional arrays"; the benchmarks that iterate an `IxDyn` array element by element reach it, those that never step a `Baseiter` (contiguous slices, `Zip` on contiguous parts, construction, `dot`) unchanged (same code)
facet-release|facet-rs/facet|16ef00acb~1|16ef00acb|Cargo.toml|stable|--package facet-hash --package facet-singularize --package facet-solver|version bump only ("chore: release" by release-plz: 0.50.0-rc.4 → rc.5 in 113 manifests, `Cargo.lock`, CHANGELOGs, no Rust file): every benchmark unchanged (same code); a workspace of 131 members, divan through `codspeed-divan-compat` in three of them (`facet-solver` with `args`), `rust-toolchain.toml` naming 1.96.0 (not installed: stable in its place), a Swift file the mirror lacks
facet-hash-fnv|facet-rs/facet|c73de566c~1|c73de566c|Cargo.toml|stable|--package facet-hash --package facet-singularize --package facet-solver|"perf(facet-hash): add concrete FNV byte hashing" (`facet-hash/src/lib.rs`; the bench `byte_vec_helper_hash` renamed `byte_vec_fnv1a64_hash`, calling the new `hash_bytes_fnv1a64`): the facet-hash benchmarks that hash bytes reach it; facet-singularize (no dependency on facet) and facet-solver (no dependency on facet-hash) unchanged (same code)
wt-version|bytecodealliance/wasm-tools|3ef3cefcd~1|3ef3cefcd|crates/wasmparser/Cargo.toml|||version bump only ("Release wasm-tools 1.257.1", #2612: `[workspace.package]` 0.257.0 → 0.257.1, every `[workspace.dependencies]` requirement on a member, wast 257.0.1 and wat 1.257.1 in their manifests, Cargo.lock): every benchmark unchanged (same code); a workspace of ~20 members, wasmparser'"'"'s one criterion target reading `../../tests` (5,000-odd `.wast`/`.wat`/`.wasm` files, encoded with wast/wat in set-up) and `benches/*.wasm` at run time by relative paths; wast compiles its version into a DWARF producer string (`env!("CARGO_PKG_VERSION")`) that no benchmark emits
wt-locals-ops|bytecodealliance/wasm-tools|03b0d14f3~1|03b0d14f3|crates/wasmparser/Cargo.toml|||"wasmparser: avoid skipping locals to get OperatorsReader for func body" (#2204: `LocalsIterator::into_operators_reader`, used by the bench file'"'"'s `read_all_wasm`): "roughly a 3-4.5% improvement in the parse/tests, parse/bz2, parse/spidermonkey, etc. benchmarks"; "the validator … is unchanged by this PR": the `validate/*` and `validate-old/*` benchmarks unchanged (same code)
wt-testsuite|bytecodealliance/wasm-tools|aee6b3719~1|aee6b3719|crates/wasmparser/Cargo.toml|||"Update spec tests suite to the latest" (#2207: the `tests/testsuite` submodule commit and the test snapshots only, no code): `parse/tests` and `validate/tests` read the changed `.wast` files at run time and are measured naming them; every benchmark of a `benches/*.wasm` file unchanged (same code)
image-version|image-rs/image|38b81dcb~1|38b81dcb|Cargo.toml||--bench decode|version bump only ("Change notes for 0.25.10" on the `version-0.25` branch: Cargo.toml'"'"'s version, CHANGES.md; no lock file): every benchmark unchanged (same code); the `decode` criterion target reads `tests/images/<format>/…` at run time (`fs::read` by a path relative to the package) for 31 files of 8 formats
image-bmp|image-rs/image|1c23e968~1|1c23e968|Cargo.toml||--bench decode|"BMP: Faster bitfield reading" (#2900, `src/codecs/bmp/decoder.rs` only): the PR'"'"'s `decode.rs` table: `load-Bmp/rgb16.bmp` −52 %, `rgb16-565.bmp` −72 %, `rgb32bf.bmp` −60 %, the other BMP files within ±4 %; every benchmark of another format unchanged (same code)
sonic-version|cloudwego/sonic-rs|dccb48a~1|dccb48a|benchmarks/Cargo.toml|||version bump only ("chore: bump version to 0.5.8", `Cargo.toml` only; no lock file): every benchmark unchanged (same code); `benchmarks/` a package outside any workspace (`sonic-rs = { path = "../" }`, itself with path dependencies `sonic-simd` and `sonic-number`), six criterion 0.7 targets that read `benches/testdata/*.json` at run time from `env!("CARGO_MANIFEST_DIR")`, pin themselves to CPU 0 (core_affinity), jemalloc (`jemalloc-sys` builds C) the global allocator, fat LTO, one codegen unit and `debug = true` in the release profile, `.cargo/config.toml` with `-C target-cpu=native` (AVX-512 on this CPU)
sonic-release|cloudwego/sonic-rs|v0.5.7|v0.5.8|benchmarks/Cargo.toml|||release gate, lightweight tag v0.5.7 → annotated tag v0.5.8 (24 commits: "reduce unsafe, fix Miri violations, and deduplicate code", `union Meta` for pointer storage, skip_one/skip_one_checked merged, the serde recursion limit enforced, sonic-simd 0.1.4 and sonic-number 0.1.2, CI): no claim; the sonic-rs benchmarks reach changed code, those of serde_json, simd-json and gjson unreached unless the one LTO unit compiles them differently
sonic-zmij|cloudwego/sonic-rs|ae08e4e~1|ae08e4e|benchmarks/Cargo.toml||--bench serialize_value|"perf: Switch from ryu -> zmij for float formatting" (#199, a dependency swapped in `src/format.rs`, `serde/number.rs`, `serde/ser.rs`, `value/ser.rs`): the PR'"'"'s `serialize_value` figures (canada, the float-heavy file, `sonic_rs::to_string` 2.31 ms before); the `sonic_rs::to_string` benchmarks of files with floats faster, `to_string_use_rawnum` (numbers kept as text) and the serde_json and simd-json ones unreached
time-version|time-rs/time|857d9c40~1|857d9c40|Cargo.toml|RUSTFLAGS=--cfg bench|--all-features|version bump only ("v0.3.55 release": `time/Cargo.toml`, `Cargo.lock`, CHANGELOG): every benchmark unchanged (same code); a virtual workspace (`default-members = ["time"]`; time-core, and time-macros a proc-macro crate with exact `=` requirements), one criterion 0.8 target whose criterion is a `cfg(bench)` dev-dependency and which refuses to compile without `RUSTFLAGS="--cfg bench"` and `--all-features`
time-release|time-rs/time|v0.3.54|v0.3.55|Cargo.toml|RUSTFLAGS=--cfg bench|--all-features|release gate, lightweight tags v0.3.54 → v0.3.55 (14 commits: deserialization fixes for timestamps, `UtcOffset` and `SignedDuration`, nano-timestamp validation (`from_unix_timestamp_nanos`), `cascade` without a range-validated ordinal, `DateIter::nth` underflow, `format_description!` feature gating, CI): no claim; the benchmarks whose machine code the release changes measured (the RFC 2822 and RFC 3339 parsers, into which `cascade!` expands), the rest unchanged (same code), `from_unix_timestamp_nanos` too (its benchmark calls it with constants the compiler folds)
time-rfc2822|time-rs/time|40d01bfa~1|40d01bfa|Cargo.toml|RUSTFLAGS=--cfg bench|--all-features|"More performance improvements for RFC 2822 parsing" (`parsing/combinator/rfc/rfc2822.rs`, `parsing/parsable.rs`): `parsing: parse_rfc2822` faster; the well-known parsers that share `parsable.rs` may reach it; formatting, arithmetic and construction unreached
time-macros-linear|time-rs/time|5a0bdd84~1|5a0bdd84|Cargo.toml|RUSTFLAGS=--cfg bench|--all-features|"Replace optimizing loop with linear pass" (time-macros only, `format_description/public/optimizing.rs`: the proc macro'"'"'s pass over a `format_description!`): the macro'"'"'s output, not its code, reaches the benchmarks; the same output gives every benchmark unchanged (same code)
sqlp-version|apache/datafusion-sqlparser-rs|3dd0e30d~1|3dd0e30d|sqlparser_bench/Cargo.toml|||version bump only (sqlparser 0.61.0 → 0.62.0: Cargo.toml and a new changelog/0.62.0.md; no lock file): every benchmark unchanged (same code); `sqlparser_bench/` a package of its own beside the library (`sqlparser = { path = "../" }`, the root a package without `[workspace]`), criterion 0.8, 8 benchmarks in three groups
sqlp-keyword|apache/datafusion-sqlparser-rs|36e8ce60~1|36e8ce60|sqlparser_bench/Cargo.toml|||"Optimise out string allocations and copies in keyword lookup" (#2226, the tokenizer'"'"'s `make_word` and the parser'"'"'s `peek_token_ref`): "sqlparser::select −8.0 %, with_select −10.4 %, parse_large_statement −13.1 %, format_large_statement −4.1 %"; the parsing benchmarks reach it, `word_to_ident` (a `Word` built by hand, cloned) does not
sqlp-mysql|apache/datafusion-sqlparser-rs|182eae81~1|182eae81|sqlparser_bench/Cargo.toml|||"MySQL: Add support for group by with rollup" (#2347: one method of `impl Dialect for MySqlDialect`, and a test): every benchmark parses with `GenericDialect`, so every benchmark unchanged (same code)
logos-version|maciejhirsz/logos|6954649~1|6954649|Cargo.toml||--package tests|version bump only (0.16.0 → 0.16.1 in `[workspace.package]`, the requirements on logos-derive/logos-codegen, Cargo.lock, the book): every benchmark unchanged (same code); the lexer the benchmarks run is generated by `#[derive(Logos)]` (logos-derive → logos-codegen), the bench target in the workspace member `tests` (codspeed-criterion-compat), `lto = true` in the bench profile
logos-unroll|maciejhirsz/logos|1bd1d2d~1|1bd1d2d|Cargo.toml||--package tests|"Unroll fast loop less" (in #491, the 0.16 rewrite: `fast_loop_macro(16)` → `(8)` in logos-codegen): the generated lexer'"'"'s loops change, and every benchmark lexes with it, so all 6 measured, each naming the generated code
logos-autoderived|maciejhirsz/logos|97ccf5b~1|97ccf5b|Cargo.toml||--package tests|"Add `#[automatically_derived]` to codegen" (#567: the macro adds an attribute to the impl it generates, snapshots): the macro crates change, the generated code compiles to the same machine code, so every benchmark unchanged (same code)
rg-version|BurntSushi/ripgrep|3fce3b5b~1|3fce3b5b|Cargo.toml|nightly|--commands-only --cmd "after=sh -c '"'"'(echo ZQZQZQZQZQ; yes the quick brown fox jumps over the lazy dog \| head -n 2500000) \| {bin}/rg ZQZQZQZQZQ -A99999'"'"'" --cmd "plain=sh -c '"'"'(echo ZQZQZQZQZQ; yes the quick brown fox jumps over the lazy dog \| head -n 2500000) \| {bin}/rg ZQZQZQZQZQ'"'"'" --cmd "version={bin}/rg --version"|version bump only (ignore 0.4.32 → 0.4.33: `crates/ignore/Cargo.toml`, `Cargo.lock`; rust-version 1.96, so nightly here): a program compared by commands (`--cmd`, `sh -c` with a pipe); `rg` runs the same code on both sides except what its build script compiles in (the commit'"'"'s hash, which `--version` prints)
rg-after|BurntSushi/ripgrep|d4b77a8d~1|d4b77a8d|Cargo.toml||--commands-only --cmd "after=sh -c '"'"'(echo ZQZQZQZQZQ; yes the quick brown fox jumps over the lazy dog \| head -n 2500000) \| {bin}/rg ZQZQZQZQZQ -A99999'"'"'" --cmd "plain=sh -c '"'"'(echo ZQZQZQZQZQ; yes the quick brown fox jumps over the lazy dog \| head -n 2500000) \| {bin}/rg ZQZQZQZQZQ'"'"'" --cmd "version={bin}/rg --version"|"searcher: fix a performance bug with -A/--after-context" (`Core::roll` looks back `before_context` lines, not `max_context`): `rg ZQZQZQZQZQ -A99999` on 110 MB of standard input faster (the commit: 5.07 s → 1.97 s), the same search without `-A` unchanged
cr-version|RoaringBitmap/croaring-rs|27a52bb~1|27a52bb|croaring/Cargo.toml|||version bump only (croaring 2.5.2 → 2.6.0: `croaring/Cargo.toml`, `Cargo.lock`, CHANGELOG): every benchmark unchanged (same code); CRoaring'"'"'s amalgamation (`croaring-sys/CRoaring/roaring.c`, 820 kB of C) compiled by `croaring-sys/build.rs` with cc, two criterion targets, one of which also runs the pure-Rust `roaring` crate
cr-c441|RoaringBitmap/croaring-rs|e86416b~1|e86416b|croaring/Cargo.toml|||"update croaring to 4.4.1" (CRoaring 4.4.0 → 4.4.1 in C, with the croaring-sys bump 4.4.0 → 4.4.1: `run_container_cardinality` no longer takes its AVX-512 path, `roaring64_bitmap_remove_bulk` clears a cached leaf): benchmarks that count a run container'"'"'s cardinality or bulk-remove from a 64-bit bitmap measured, the pure-Rust `roaring-rs` ones and every other unchanged (same code)
cr-iter-nth|RoaringBitmap/croaring-rs|c76c434~1|c76c434|croaring/Cargo.toml|||"Add skip functions to BitmapCursor, and implement BitmapIter::nth with skips" (Rust only, `croaring/src/bitmap/iter.rs`, and the requirement on croaring-sys 4.3.0 → 4.4.0, which the lock already had): only a benchmark that calls `nth` (directly or through `skip`/`step_by`) reaches it; no C changes, so the croaring-sys build is the same on both sides
cs-version|capstone-rust/capstone-rs|32cb913~1|32cb913|capstone-rs/Cargo.toml|||version bump only (capstone 0.13.0 → 0.14.0, capstone-sys 0.17.0 → 0.18.0 and the requirement on it, cstool, `Cargo.lock`, changelogs): every benchmark unchanged (same code); the Capstone C library (`capstone-sys/capstone/`, vendored, every architecture) compiled by `capstone-sys/build.rs` with cc, `links = "capstone"`, one criterion target (x86-64 disassembly of `test-inputs/x86_64.bin_ls.bin`, compiled in)
cs-c507|capstone-rust/capstone-rs|b4de0af~1|b4de0af|capstone-rs/Cargo.toml|||"bump capstone to 5.0.7" (C only: `SStream_concat0`/`concat1`/`concat` check for overflow, `cs_disasm`/`cs_disasm_iter` clamp skipped data; no version of a crate changes): every benchmark prints instructions through `SStream_concat*`, so all four measured, naming those functions
cs-nolibc|capstone-rust/capstone-rs|4ed86fb~1|4ed86fb|capstone-rs/Cargo.toml|||"capstone-rs: Remove runtime dependency on libc" (Rust only: `libc::c_int` → `core::ffi::c_int` and the like in capstone-rs, `Cargo.lock`; `ffi::str_from_cstr_ptr` now `CStr::from_ptr` instead of `libc::strlen`; capstone-sys untouched): the benchmarks iterate over instructions without reading a mnemonic or operand string, so every one unchanged (same code), capstone-sys built once
fd-version|sharkdp/fd|bf6489a~1|bf6489a|Cargo.toml||--commands-only --cmd "include={bin}/fd -HI --type f . /usr/include" --cmd "headers={bin}/fd -e h stdio /usr/include" --cmd "repo={bin}/fd -e rs" --cmd "version={bin}/fd --version"|version bump only (10.4.1 → 10.4.2: `Cargo.toml`, `Cargo.lock`, CHANGELOG): a program compared by commands (`--cmd`: two searches of `/usr/include`, one of the checkout, `--version`); every search unchanged (same code), `version` prints the version; LTO, one codegen unit and `strip = true` in the release profile
fd-ignore-contain|sharkdp/fd|a4d86cc~1|a4d86cc|Cargo.toml||--commands-only --cmd "include={bin}/fd -HI --type f . /usr/include" --cmd "headers={bin}/fd -e h stdio /usr/include" --cmd "repo={bin}/fd -e rs" --cmd "version={bin}/fd --version" --cmd "cachedir={bin}/fd --ignore-contain CACHEDIR.TAG -e h . /usr/include"|"perf: Avoid unnecessary syscall for ignore-contain" (#1914, issue #1913: the walker called `is_dir` on every entry'"'"'s path, a `statx` each, before looking at `--ignore-contain`; now the entry'"'"'s file type): every search walks through the changed closure, `version` does not
fd-exec-help|sharkdp/fd|2278836~1|2278836|Cargo.toml||--commands-only --cmd "include={bin}/fd -HI --type f . /usr/include" --cmd "headers={bin}/fd -e h stdio /usr/include" --cmd "repo={bin}/fd -e rs" --cmd "version={bin}/fd --version"|"docs: clarify --exec positional argument handling" (`src/cli.rs`: two sentences of `--exec`'"'"'s long help, and the README): no command prints the help, so every command unchanged (same code), though the code that builds the argument parser at every start names the changed text
pl-version|Amanieu/parking_lot|bc72f02~1|bc72f02|benchmark/Cargo.toml||--commands-only --cmd "mutex={bin}/mutex 2 1 1 1 1" --cmd "rwlock={bin}/rwlock 1 2 1 1 1 1"|version bump only (release-plz "chore: release": parking_lot 0.12.3 → 0.12.4, parking_lot_core, lock_api, CHANGELOG): the `mutex` and `rwlock` programs of `benchmark/`, a package outside the workspace (`exclude = ["benchmark"]`, `parking_lot = { path = ".." }`, no lock file), run as commands with arguments (threads, work, seconds per test); both unchanged (same code)
pl-release|Amanieu/parking_lot|d7828ff~1|d7828ff|benchmark/Cargo.toml||--commands-only --cmd "mutex={bin}/mutex 2 1 1 1 1" --cmd "rwlock={bin}/rwlock 1 2 1 1 1 1"|release 0.12.4 → 0.12.5 ("chore: release" by release-plz; the commit also wraps `RawRwLock::upgrade_slow`'"'"'s wait in `deadlock_release`/`deadlock_acquire`, empty without the `deadlock_detection` feature): no program upgrades a lock, and the added calls compile to nothing; both unchanged (same code)
pl-wordlock|Amanieu/parking_lot|fbfe854~1|fbfe854|benchmark/Cargo.toml||--commands-only --cmd "mutex={bin}/mutex 2 1 1 1 1" --cmd "rwlock={bin}/rwlock 1 2 1 1 1 1"|"word_lock: use AtomicPtr" (#499, `core/src/word_lock.rs`: the bucket lock'"'"'s state an `AtomicPtr` for Miri'"'"'s provenance, the same operations): the contended locks park threads through the buckets'"'"' `WordLock`; the machine code should be the same
pl-once|Amanieu/parking_lot|75d0bfc~1|75d0bfc|benchmark/Cargo.toml||--commands-only --cmd "mutex={bin}/mutex 2 1 1 1 1" --cmd "rwlock={bin}/rwlock 1 2 1 1 1 1"|"feat(once): add Once::new_completed constructor" (#520, a new `const fn` and tests in `src/once.rs`): no program uses `Once`; both unchanged (same code)
tokei-version|XAMPPRocky/tokei|8cdd6fa~1|8cdd6fa|Cargo.toml||--commands-only --cmd "linux={bin}/tokei /usr/include/linux" --cmd "src={bin}/tokei src" --cmd "repo={bin}/tokei" --cmd "version={bin}/tokei --version"|version bump only ("chore: release v14.0.0" #1299: `Cargo.toml`, `Cargo.lock`, CHANGELOG): a program that reads the files it counts (`/usr/include/linux`, the checkout'"'"'s `src/`, the whole checkout) and `--version`; `linux` and `src` unchanged (same code), `repo` reads the changed `Cargo.toml`, `Cargo.lock` and CHANGELOG, `version` prints the version; a build script writes the language table from `languages.json` through a tera template; thin LTO, `panic = "abort"`
tokei-readme|XAMPPRocky/tokei|4ee23cb~1|4ee23cb|Cargo.toml||--commands-only --cmd "linux={bin}/tokei /usr/include/linux" --cmd "src={bin}/tokei src" --cmd "repo={bin}/tokei" --cmd "version={bin}/tokei --version"|"Stop recommending comma-separated CLI args" (#1305, `README.md` only): only `repo` reads the README; every other command unchanged (same code)
tokei-djot|XAMPPRocky/tokei|d9cbc01~1|d9cbc01|Cargo.toml||--commands-only --cmd "linux={bin}/tokei /usr/include/linux" --cmd "src={bin}/tokei src" --cmd "repo={bin}/tokei" --cmd "version={bin}/tokei --version"|"Add Djot language support in languages.json" (#1321, `languages.json` only): the build script writes a new `LanguageType` variant and its extensions into the code every count runs (generated code from a data file); every count measured for that
rayon-version|rayon-rs/rayon|94d3d454~1|94d3d454|Cargo.toml|bootstrap|--package rayon-demo|version bump only ("Release rayon 1.12.0": the root `Cargo.toml`'"'"'s version, README, RELEASES, and `ci/compat-Cargo.lock` outside the workspace; no lock file): every benchmark unchanged (same code); a workspace whose root package `rayon` has members `rayon-core` (a build script, `links`) and `rayon-demo`, whose libtest `#[bench]` functions (about 110, `#![cfg_attr(test, feature(test))]`) are unit tests of its binary, built on stable with `RUSTC_BOOTSTRAP=1`; every parallel benchmark runs on the global thread pool
rayon-walktree|rayon-rs/rayon|8582ad08~1|8582ad08|Cargo.toml|bootstrap|--package rayon-demo|"Use `vec!` to create walk-tree'"'"'s `to_explore`" (#1299, `src/iter/walk_tree.rs` only: "It shouldn'"'"'t really make a difference to performance though"): the four `tree::*` benchmarks call `walk_tree_prefix`/`walk_tree_postfix` in their timed loop and are measured naming the walk-tree producer; every other benchmark unchanged (same code)
rayon-seqcst|rayon-rs/rayon|6b1367fe~1|6b1367fe|Cargo.toml|bootstrap|--package rayon-demo|"Make `CoreLatch::set` use `SeqCst` instead of `AcqRel`" (#1297, one line of `rayon-core/src/latch.rs`): every latch of the pool sets through it, but on x86-64 an `AcqRel` and a `SeqCst` swap are the same `xchg`, so every benchmark unchanged (same code) if the compiler makes the same code
dalek-ed-version|dalek-cryptography/curve25519-dalek|5b796f38~1|5b796f38|Cargo.toml||--workspace --features curve25519-dalek/rand_core,ed25519-dalek/rand_core|version bump of one member only ("ed: Prepare for pre.7 release" #904: ed25519-dalek 3.0.0-pre.6 → pre.7 in its `Cargo.toml`, CHANGELOG, README; `Cargo.lock` not updated by the commit): every benchmark unchanged (same code); a virtual workspace of 4 members (`curve25519-dalek-derive` a proc macro writing `#[target_feature]` copies of the vector backend), three criterion 0.5 targets with `required-features`, a build script choosing the backend by cfg, AVX2 (and AVX-512 IFMA on nightly) chosen at run time by `cpufeatures`
dalek-naf8|dalek-cryptography/curve25519-dalek|revert 0a09c4eb on 5b796f38|5b796f38|Cargo.toml||--workspace --features curve25519-dalek/rand_core,ed25519-dalek/rand_core|"perf: use width-8 NAF for static scalars to match NafLookupTable8" (#848, one line in each of the serial and vector backends'"'"' `precomputed_straus.rs`: "reduces the number of static additions"), measured on the tree of #904 (May 2026: the tree of December 2025 no longer resolves its pre-release `digest`): the curve benchmarks of `VartimePrecomputedMultiscalarMul` faster; x25519 and ed25519 (no precomputed Straus) and every other curve benchmark unchanged (same code); on this CPU the AVX2 backend runs, so the serial copy is never reached
dalek-avx512|dalek-cryptography/curve25519-dalek|4cf8db23~1|4cf8db23|Cargo.toml||--workspace --features curve25519-dalek/rand_core,ed25519-dalek/rand_core|"Support AVX512 on stable Rust" (#913, fixes #758: the build script no longer asks for nightly before it sets the `curve25519_dalek_backend`/AVX-512 cfgs, the `unsafe_target_feature` derive and the vector backend'"'"'s dispatch): on this CPU (AVX-512 IFMA) head picks the IFMA backend at run time where base picked AVX2, while valgrind hides AVX-512; the ed25519 verification benchmarks (vartime double-base mul through the vector backend) measured, signing, key generation and x25519 (serial backend) unchanged (same code) if their code is the same
dalek-avx512-on|dalek-cryptography/curve25519-dalek|4cf8db23~1|4cf8db23|Cargo.toml|RUSTFLAGS=-C target-cpu=native|--workspace --features curve25519-dalek/rand_core,ed25519-dalek/rand_core|#913 as `dalek-avx512`, built for this CPU (`-C target-cpu=native`: AVX-512 IFMA and VL enabled at compile time, which head'"'"'s build script needs to choose its `avx512` backend by itself, "Automatic" in its README): base picks AVX2 at run time, head the AVX-512 IFMA backend (valgrind hides AVX-512, and may not run code compiled for it): the ed25519 verification benchmarks (vector backend) measured; signing and key generation (the serial basepoint table) and x25519 (the serial Montgomery ladder) unchanged (same code) only if no function they run differs, natively too
cr-c4310|RoaringBitmap/croaring-rs|f89797a~1|f89797a|croaring/Cargo.toml|||"update croaring to 4.3.10" (CRoaring 4.3.7 → 4.3.10 in C, croaring-sys 4.3.7 → 4.3.10: `roaring_bitmap_deserialize_safe` copies elements through `char` pointers, `roaring_bitmap_frozen_serialize` writes its header through one, `roaring64_iterator_read` marks an iterator saturated at its end, two lines added above the last 64-bit functions): benchmarks that read a 64-bit bitmap'"'"'s iterator in bulk measured, every other unchanged (same code)
jd-version-old|image-rs/jpeg-decoder|3bf223f~1|3bf223f|Cargo.toml|||version bump only ("Update meta data for 0.1.22": Cargo.toml, CHANGELOG.md; no lock file): every benchmark unchanged (same code); one criterion 0.3 target of four benchmarks, JPEG files compiled in with include_bytes!, the scalar IDCT, rayon workers by default
jd-idct-bounds|image-rs/jpeg-decoder|97742b3~1|97742b3|Cargo.toml|||"Eliminate some bounds checks in IDCT" (#167: an `assert!` as an optimizer hint in `idct.rs`, "should speed things up"): the three decode benchmarks run the IDCT, `extract metadata from an image` does not (unchanged, same code)
jd-version|image-rs/jpeg-decoder|eb2d7c0~1|eb2d7c0|Cargo.toml|stable|--bench large_image|version bump only ("Release 0.3.2" #284: Cargo.toml, CHANGELOG.md; no lock file) on the tree with SSSE3/AVX2 IDCT and colour conversion chosen at run time: `large_image` unchanged (same code); `decoding_benchmark` compiles in a lossless JPEG the mirror lacks, so only `large_image` builds; the tree'"'"'s `rust-toolchain` pins 1.61.0, which this machine lacks, so the stable toolchain is named
jd-version-pi|image-rs/jpeg-decoder|eb2d7c0~1|eb2d7c0|Cargo.toml|stable|--bench large_image --no-default-features --features platform_independent|the same version bump with the scalar backend (`platform_independent`: no SIMD) and no rayon, both sides built alike: unchanged (same code)
tiff-version|image-rs/image-tiff|03979fa~1|03979fa|Cargo.toml|||version bump only ("Metadata for 0.11.3 release": Cargo.toml, CHANGES.md; no lock file): every benchmark unchanged (same code); one criterion 0.3 target (`lzw`, four files), TIFF files compiled in through include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), ...)), flate2, weezl, fax and zune-jpeg backends by default features
tiff-weezl|image-rs/image-tiff|0fdf1e0~1|0fdf1e0|Cargo.toml|||"Upgrade weezl to 0.2" (Cargo.toml only, no lock file: the LZW codec 0.1 → 0.2): the LZW decode and encode benchmarks reach it, the uncompressed, deflate and packbits ones unchanged (same code); the `lzw` target'"'"'s four benchmarks panic at both commits (`more_images` without `next_directory`, fixed later by a1426ca)
tiff-predictor|image-rs/image-tiff|dc94cd4|fa8a911|Cargo.toml|||"Optimize horizontal and float predictor decode (4-43% faster)" (#379, from its benchmark commit to its perf commit: `decoder/mod.rs`, `decoder/image.rs`): "Strip RGB8 deflate+hpred -11 %", "Strip RGB f32 deflate+fpred -27 %", on a 21 MP corpus the repository does not hold (`decode.rs` reads `tests/benches/corpus/*.tif` at run time and skips what is missing); the synthetic predictor benchmarks reach it, the encode benchmarks unchanged (same code)
tiff-weezl-zlib|image-rs/image-tiff|0fdf1e0~1|0fdf1e0|Cargo.toml||--features flate2/zlib|the weezl upgrade with flate2'"'"'s `zlib` backend (libz-sys: the C zlib, the system'"'"'s shared library when pkg-config finds it) instead of miniz_oxide, both sides built alike: the deflate benchmarks run the C zlib and stay unchanged (same code), the LZW ones reach the new weezl
'

out=$(realpath -m "${OUT:-target/field-trials}")
mkdir -p "$out/src"

clone() {
  local repo=$1 dir="$out/src/${1/\//+}"
  if [ ! -d "$dir/.git" ]; then
    if [ -n "${MIRRORS:-}" ]; then
      git clone -q --no-checkout "$MIRRORS/${repo/\//+}/repo" "$dir"
    else
      git clone -q --no-checkout "https://github.com/$repo" "$dir"
    fi
  fi
  echo "$dir"
}

# The submodules of commit $2 in clone $1, initialised as a user would (`git submodule update
# --init`), each from its mirror when MIRRORS is set (a submodule without a mirror stays
# uninitialised, an empty directory, as in a user's clone that never ran it).
init_submodules() {
  local dir=$1 commit=$2 key url name slug path
  git -C "$dir" cat-file -e "$commit:.gitmodules" 2>/dev/null || return 0
  # An empty `.gitmodules` (sonic-rs has one) names no submodule: `--get-regexp` exits 1.
  { git -C "$dir" config --blob "$commit:.gitmodules" --get-regexp '^submodule\..*\.url$' || true; } |
    while read -r key url; do
      name=${key#submodule.} name=${name%.url}
      path=$(git -C "$dir" config --blob "$commit:.gitmodules" "submodule.$name.path")
      if [ -n "${MIRRORS:-}" ]; then
        slug=${url#https://github.com/} slug=${slug%.git}
        [ -d "$MIRRORS/${slug/\//+}/repo" ] || continue
        url="$MIRRORS/${slug/\//+}/repo"
      fi
      git -C "$dir" config "submodule.$name.url" "$url"
      git -C "$dir" -c protocol.file.allow=always submodule --quiet update --init -- "$path"
    done
}

# Paths of commit $2's tree whose blobs repository $1 lacks.
missing_paths() {
  git -C "$1" ls-tree -r "$2" | awk '$2 == "blob" { print $3 "\t" $4 }' |
    while IFS=$'\t' read -r blob path; do
      git -C "$1" cat-file -e "$blob" 2>/dev/null || printf '%s\n' "$path"
    done
}

# Commit $2 of repository $1 rebuilt without paths $3 (newline-separated) on parent $4 (or none):
# the same message, a fixed author and the original dates, so the hash is reproducible.
rebuild_without() {
  local dir=$1 commit=$2 drop=$3 parent=${4:-} index tree
  index=$(mktemp)
  GIT_INDEX_FILE=$index git -C "$dir" read-tree "$commit"
  printf '%s\n' "$drop" | while IFS= read -r path; do
    [ -z "$path" ] || GIT_INDEX_FILE=$index git -C "$dir" rm -q --cached -- "$path"
  done
  tree=$(GIT_INDEX_FILE=$index git -C "$dir" write-tree)
  rm -f "$index"
  git -C "$dir" log -1 --format=%B "$commit" |
    GIT_AUTHOR_NAME=field-trial GIT_AUTHOR_EMAIL=field-trial@localhost \
      GIT_COMMITTER_NAME=field-trial GIT_COMMITTER_EMAIL=field-trial@localhost \
      GIT_AUTHOR_DATE="$(git -C "$dir" log -1 --format=%aI "$commit")" \
      GIT_COMMITTER_DATE="$(git -C "$dir" log -1 --format=%cI "$commit")" \
      git -C "$dir" commit-tree "$tree" ${parent:+-p "$parent"}
}

# Commit $2 of repository $1, fetching the pull requests' heads when the clone lacks it.
commit_of() {
  if ! git -C "$1" rev-parse -q --verify "$2^{commit}" >/dev/null; then
    git -C "$1" fetch -q origin '+refs/pull/*/head:refs/remotes/origin/pull/*'
  fi
  git -C "$1" rev-parse --verify "$2^{commit}"
}

# Commit $3 of repository $1 with the change of commit $2 undone, on parent $3: the message
# names both, the author is fixed and the dates are $3's, so the hash is reproducible.
revert_on() {
  local dir=$1 change=$2 onto=$3 index tree
  index=$(mktemp)
  GIT_INDEX_FILE=$index git -C "$dir" read-tree "$onto"
  git -C "$dir" diff "$change" "$change^" | GIT_INDEX_FILE=$index git -C "$dir" apply --cached
  tree=$(GIT_INDEX_FILE=$index git -C "$dir" write-tree)
  rm -f "$index"
  printf 'field trial: %s without %s\n\nRevert "%s"\n' "$(git -C "$dir" rev-parse --short=12 "$onto")" \
    "$(git -C "$dir" rev-parse --short=12 "$change")" "$(git -C "$dir" log -1 --format=%s "$change")" |
    GIT_AUTHOR_NAME=field-trial GIT_AUTHOR_EMAIL=field-trial@localhost \
      GIT_COMMITTER_NAME=field-trial GIT_COMMITTER_EMAIL=field-trial@localhost \
      GIT_AUTHOR_DATE="$(git -C "$dir" log -1 --format=%aI "$onto")" \
      GIT_COMMITTER_DATE="$(git -C "$dir" log -1 --format=%cI "$onto")" \
      git -C "$dir" commit-tree "$tree" -p "$onto"
}

# The commit a trial's base or head ($2) names in repository $1: a revision, or `revert X on Y`.
resolve_spec() {
  local dir=$1 spec=$2 change onto
  if [[ $spec =~ ^revert\ ([^ ]+)\ on\ ([^ ]+)$ ]]; then
    change=$(commit_of "$dir" "${BASH_REMATCH[1]}")
    onto=$(commit_of "$dir" "${BASH_REMATCH[2]}")
    revert_on "$dir" "$change" "$onto"
  else
    commit_of "$dir" "$spec"
  fi
}

# Tag $2 of repository $1 when it is one (a release gate passes tags, as a maintainer would, so
# that cargo-perfdiff peels and names them), else commit $3.
tag_or() {
  if git -C "$1" show-ref -q --verify "refs/tags/$2"; then echo "$2"; else echo "$3"; fi
}

# Prints "BASE HEAD": the trial's commits (or tags), rebuilt without the files the clone lacks if any.
usable_commits() {
  local dir=$1 name=$2 base head drop
  base=$(resolve_spec "$dir" "$3")
  head=$(resolve_spec "$dir" "$4")
  drop=$( (missing_paths "$dir" "$base"; missing_paths "$dir" "$head") | sort -u)
  if [ -z "$drop" ]; then
    echo "$(tag_or "$dir" "$3" "$base") $(tag_or "$dir" "$4" "$head")"
    return
  fi
  echo "$name: the clone lacks $(printf '%s\n' "$drop" | wc -l) file(s); comparing commits rebuilt without:" >&2
  printf '  %s\n' "$drop" >&2
  base=$(rebuild_without "$dir" "$base" "$drop")
  head=$(rebuild_without "$dir" "$head" "$drop" "$base")
  git -C "$dir" branch -f "field-trial/$name/base" "$base" >/dev/null
  git -C "$dir" branch -f "field-trial/$name/head" "$head" >/dev/null
  echo "$base $head"
}

# Seconds at the last progress line matching $2 in log $1 (the `[  12.3s]` stamps): the fallback
# for a run that ended before writing its report (the report's `run.phases` is the split).
stamp() {
  grep -E "$2" "$1" | tail -n 1 | sed -E 's/^\[ *([0-9.]+)s\].*/\1/' || true
}

# The run's wall time split as the run recorded it (`run.phases` and `run.measure_ms` of the
# JSON report $1, docs/reports.md); nothing when the report lacks them.
split_from_json() {
  jq -r '
    def s: if . == null then "?" else (. / 100 | round / 10 | tostring) + " s" end;
    def build: "\(.ms | s) (\(.crates_compiled) crates compiled)";
    .run as $r | ($r.phases // empty) as $p |
    "build: base \($p.build.base | build)"
      + (if $p.build.head then ", head \($p.build.head | build)" else " (served both)" end)
      + "; checkout \($p.checkout_ms | s); discovery \($p.discovery_ms | s)"
      + "; trace \($p.trace_ms | s); probe \($p.probe_ms | s); selection \($p.selection_ms | s)"
      + "; measuring \($r.measure_ms | s); analysis \($p.analysis_ms | s)"
      + "; explain \($p.explain_ms | s); run \($r.wall_ms | s) in all"' "$1" 2>/dev/null || true
}

summarise() {
  local name=$1 log=$2 json=$3 wall=$4 claim=$5
  local split built traced probed
  split=$(split_from_json "$json")
  echo "== $name ($claim)"
  if [ -n "$split" ]; then
    echo "wall ${wall} s; $split"
  else
    built=$(stamp "$log" '] built head')
    traced=$(stamp "$log" '] [0-9]+/[0-9]+ traced')
    probed=$(stamp "$log" 'execute the same code|benchmark\(s\) would be compared|choosing what the change reaches needs')
    echo "wall ${wall} s (the report has no split; from the progress stamps): build done at ${built:-?} s; traced at ${traced:-?} s; selection (probe) done at ${probed:-?} s"
  fi
  jq -r '.benchmarks[] | "\(.id)\t\(.verdict)\t\(if .change_rate then (.change_rate * 100 | . * 10 | round / 10 | tostring) + " %" else "—" end)\t\(.unit // "")\t\(.selection.reason // "—")\t\(.selection.detail // "" | .[0:140])"' "$json" |
    column -t -s $'\t' || true
  jq -r '"verdicts: " + ([.benchmarks[].verdict] | group_by(.) | map("\(.[0]) \(length)") | join(", "))' "$json" || true
}

perfdiff() {
  if [ -n "${PERFDIFF:-}" ]; then "$PERFDIFF" perfdiff "$@"; else cargo perfdiff "$@"; fi
}

# Exports RUSTUP_TOOLCHAIN=$1 when $1 is set (a trial of libtest `#[bench]` targets needs nightly);
# `bootstrap` exports RUSTC_BOOTSTRAP=1 instead, libtest on stable as a user without nightly builds it;
# `VAR=value` exports that variable, as a user would set it (time's benchmarks compile only with
# `RUSTFLAGS="--cfg bench"`).
with_toolchain() {
  if [ "$1" = bootstrap ]; then
    export RUSTC_BOOTSTRAP=1
  elif [[ $1 == *=* ]]; then
    export "${1?}"
  elif [ -n "$1" ]; then
    export RUSTUP_TOOLCHAIN=$1
  fi
}

run_trial() {
  local name repo base head manifest toolchain extra claim dir commits
  # A `|` inside a field (a command's pipe) is written `\|`.
  IFS='|' read -r name repo base head manifest toolchain extra claim <<<"${1//\\|/$'\x1f'}"
  extra=${extra//$'\x1f'/|} claim=${claim//$'\x1f'/|}
  dir=$(clone "$repo")
  commits=$(usable_commits "$dir" "$name" "$base" "$head")
  base=${commits% *} head=${commits#* }
  git -C "$dir" checkout -q -f --detach "$head"
  git -C "$dir" clean -fdq
  init_submodules "$dir" "$head"
  local list="$out/$name.list" log="$out/$name.log" json="$out/$name.json" start end
  # Extra arguments are words as a shell splits them: a `--cmd` quotes its command line.
  (cd "$dir" && eval "set -- $extra" && with_toolchain "$toolchain" && perfdiff "$base" "$head" \
    --manifest-path "$manifest" --list "$@") >"$list" 2>&1 || echo "$name: --list failed (see $list)"
  if [ -n "${LIST_ONLY:-}" ]; then
    echo "== $name: --list in $list"
    return
  fi
  start=$(date +%s.%N)
  (cd "$dir" && eval "set -- $extra" && with_toolchain "$toolchain" && perfdiff "$base" "$head" \
    --manifest-path "$manifest" --format json -o "$json" --fail-on never "$@") 2>"$log" ||
    echo "$name: cargo perfdiff failed (see $log)"
  end=$(date +%s.%N)
  summarise "$name" "$log" "$json" "$(echo "$end - $start" | bc)" "$claim"
}

# group | its trials
GROUPS_OF_TRIALS='
unseen|useg-version useg-ascii toml-release toml-lexer bstr-version bstr-count
newcomer|rand-version rand-weighted html5ever-version html5ever-serialize
newcomer10|base64-version base64-decode winnow-version winnow-hexuint
newcomer11|qxml-version qxml-attr qxml-compare-version hb-version hb-get b3-version b3-asslice
newcomer12|av-version av-clone sj-version sj-unaligned lex-version lex-inline
newcomer12b|itt-version itt-mergeby uuid-version uuid-version-v4v7 uuid-hash
newcomer13|url-version url-host nb-version nb-sqrt pc-version pc-lto pc-version-013
newcomer14|ch-version ch-avx2dec snap-version snap-crc sv-version sv-insert
newcomer15c|fr-release24 fr-release25 ahash-release itoa-release18 itoa-release16
newcomer15|cu-version cu-wc-splice cu-root cb-skiplist-version cb-epoch-falseshare cb-root
newcomer15b|crc-version crc-dword crc-combine rsb-version rsb-bitor nom-version nom-docs
newcomer16b|dv-version dv-alloc clap-version
newcomer16|jiff-version jiff-tsdt jiff-weekday fmt-der-version fmt-der-version-all fmt-der-setof
newcomer17|ring-version ring-digest-update ring-aes-fallback pcap-version pcap-writer pcap-bytes-used lz4-safe-decomp
newcomer17b|tokio-version tokio-notify age-version age-asyncarmor age-armorws age-prealloc tracing-version tracing-envfilter
newcomer17c|pest-version pest-json-ctrl pest-gen-docs mg-version mg-outdir mg-cda
newcomer18|ttf-version ttf-glyf ttf-avar gimli-version gimli-cfi gimli-ehmode
newcomer18b|nd-version nd-iter-move facet-release facet-hash-fnv
newcomer18c|im-version im-release http-version http-release142 http-release140 bf-version bf-release tv-version tv-release
newcomer19|wt-version wt-locals-ops wt-testsuite image-version image-bmp
newcomer19b|sqlp-version sqlp-keyword sqlp-mysql logos-version logos-unroll logos-autoderived
newcomer19c|sonic-version sonic-release sonic-zmij time-version time-release time-rfc2822 time-macros-linear
lead19|rg-version rg-after
newcomer20|cr-version cr-c441 cr-iter-nth cs-version cs-c507 cs-nolibc
newcomer20b|fd-version fd-ignore-contain fd-exec-help pl-version pl-release pl-wordlock pl-once tokei-version tokei-readme tokei-djot
newcomer20c|rayon-version rayon-walktree rayon-seqcst dalek-ed-version dalek-naf8 dalek-avx512 dalek-avx512-on
cassert|cr-c441 cr-c4310
newcomer21|jd-version-old jd-idct-bounds jd-version jd-version-pi tiff-version tiff-weezl tiff-predictor tiff-weezl-zlib
'

# The trials the arguments name: each a trial's name or a group's.
wanted() {
  local arg
  for arg in "$@"; do
    printf '%s\n' "$GROUPS_OF_TRIALS" | awk -F'|' -v g="$arg" '$1 == g { print $2 }' | tr ' ' '\n'
    printf '%s\n' "$arg"
  done
}

while IFS= read -r trial; do
  [ -n "$trial" ] || continue
  name=${trial%%|*}
  if [ $# -eq 0 ] || wanted "$@" | grep -x "$name" >/dev/null; then
    run_trial "$trial"
  fi
done <<<"$TRIALS"
