//! Revisions and worktrees against real git repositories in temporary directories.
//!
//! Scenarios are built with the git CLI (the way users make them); every test that touches a
//! user repository checks afterwards that its working tree, index, HEAD, refs, stash, config and
//! worktree list are byte-for-byte what they were, failures included.
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use cargo_perfdiff::steps::git::revisions::{self, Comparison, Revision, RevisionError};
use cargo_perfdiff::steps::git::worktree::{self, WorktreeError};

// ---------------------------------------------------------------- helpers

/// Runs git in `dir` isolated from the machine's configuration; panics with stderr on failure.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = git_command(dir, args).output().expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .trim_end()
        .to_string()
}

fn git_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        .args([
            "-c",
            "protocol.file.allow=always",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0");
    command
}

fn write(dir: &Path, relative: &str, contents: &str) {
    let path = dir.join(relative);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, contents).unwrap();
}

/// A new repository on branch `main` with a local identity.
fn init_repo(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "user.name", "Perf Tester"]);
    git(dir, &["config", "user.email", "perf@example.invalid"]);
}

fn commit_all(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// A temp dir whose path has a space and non-ASCII characters, as users' paths do.
fn awkward_tempdir() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("my prøject ü");
    fs::create_dir_all(&root).unwrap();
    (tmp, root)
}

/// Repository with three commits on main (c1 → c2 → c3) and a `.gitignore` for `/target`.
struct History {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    commits: Vec<String>,
}

fn history() -> History {
    let (tmp, root) = awkward_tempdir();
    let repo = root.join("repo");
    init_repo(&repo);
    write(&repo, ".gitignore", "/target\n*.log\n");
    write(&repo, "Cargo.toml", "[package]\nname = \"x\"\n");
    write(&repo, "src/lib.rs", "pub fn one() -> u32 { 1 }\n");
    write(&repo, "src/unchanged.rs", "// never changes\n");
    write(&repo, "benches/old.rs", "// only in c1\n");
    let c1 = commit_all(&repo, "c1");
    write(&repo, "src/lib.rs", "pub fn one() -> u32 { 2 }\n");
    fs::remove_file(repo.join("benches/old.rs")).unwrap();
    write(&repo, "benches/new.rs", "// added in c2\n");
    let c2 = commit_all(&repo, "c2");
    write(&repo, "README.md", "c3\n");
    let c3 = commit_all(&repo, "c3");
    History {
        _tmp: tmp,
        repo,
        commits: vec![c1, c2, c3],
    }
}

fn open(dir: &Path) -> git2::Repository {
    revisions::open_repository(dir).unwrap()
}

fn resolve(repo: &Path, args: &[&str]) -> Result<Comparison, RevisionError> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    revisions::resolve_comparison(&open(repo), &args)
}

fn commit_rev(sha: &str) -> Revision {
    Revision {
        spec: sha[..7].to_string(),
        commit: Some(sha.to_string()),
        working_tree: false,
    }
}

/// Everything of the user's that must never change.
#[derive(Debug, PartialEq, Eq)]
struct UserState {
    index: Option<String>,
    config: String,
    status: String,
    head: String,
    refs: String,
    stash: String,
    worktrees: String,
    /// Files in the object store: we never write there (snapshots go to the slot's own store).
    objects: usize,
    files: BTreeMap<PathBuf, String>,
}

/// A short fingerprint of some bytes, so a failed comparison prints readably.
fn digest(bytes: &[u8]) -> String {
    git2::Oid::hash_object(git2::ObjectType::Blob, bytes)
        .unwrap()
        .to_string()
}

impl UserState {
    /// `skip` are top-level names left out of the file comparison (the perfdiff dir's parent).
    fn capture(repo: &Path, skip: &[&str]) -> UserState {
        // A linked worktree has its own git dir (index, HEAD) and shares the common one.
        let git_dir = PathBuf::from(git(repo, &["rev-parse", "--absolute-git-dir"]));
        let common = PathBuf::from(git(
            repo,
            &["rev-parse", "--path-format=absolute", "--git-common-dir"],
        ));
        // Read the index before running git, and keep git from refreshing it.
        let index = fs::read(git_dir.join("index")).ok().map(|b| digest(&b));
        let quiet = |args: &[&str]| {
            let mut all = vec!["--no-optional-locks"];
            all.extend_from_slice(args);
            let out = git_command(repo, &all).output().unwrap();
            String::from_utf8_lossy(&out.stdout).to_string()
        };
        let mut raw = BTreeMap::new();
        collect_files(repo, repo, skip, &mut raw);
        let files = raw.into_iter().map(|(p, b)| (p, digest(&b))).collect();
        UserState {
            index,
            config: digest(&fs::read(common.join("config")).unwrap()),
            status: quiet(&["status", "--porcelain", "--untracked-files=all"]),
            head: quiet(&["rev-parse", "HEAD"]),
            refs: quiet(&["show-ref"]),
            stash: quiet(&["stash", "list"]),
            worktrees: quiet(&["worktree", "list", "--porcelain"]),
            objects: count_files(&common.join("objects")),
            files,
        }
    }
}

fn collect_files(root: &Path, dir: &Path, skip: &[&str], out: &mut BTreeMap<PathBuf, Vec<u8>>) {
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let relative = entry.path().strip_prefix(root).unwrap().to_path_buf();
        let name = relative.to_string_lossy().to_string();
        if entry.file_name() == ".git" || skip.contains(&name.as_str()) {
            continue;
        }
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            collect_files(root, &entry.path(), skip, out);
        } else {
            out.insert(relative, fs::read(entry.path()).unwrap_or_default());
        }
    }
}

fn count_files(dir: &Path) -> usize {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    if e.path().is_dir() {
                        count_files(&e.path())
                    } else {
                        1
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

/// Relative path → contents of the files in a materialised slot (its `.git` left out).
fn slot_files(slot: &Path) -> BTreeMap<String, String> {
    let mut raw = BTreeMap::new();
    collect_files(slot, slot, &[], &mut raw);
    raw.into_iter()
        .filter(|(p, _)| !p.components().any(|c| c.as_os_str() == ".git"))
        .map(|(p, c)| {
            (
                p.to_string_lossy().to_string(),
                String::from_utf8_lossy(&c).to_string(),
            )
        })
        .collect()
}

fn mtimes(slot: &Path, files: &[&str]) -> Vec<SystemTime> {
    files
        .iter()
        .map(|f| fs::metadata(slot.join(f)).unwrap().modified().unwrap())
        .collect()
}

fn perfdiff_dir(repo: &Path) -> PathBuf {
    repo.join("target/perfdiff")
}

// ---------------------------------------------------------------- opening

#[test]
fn opens_from_a_subdirectory_and_reports_the_top_level() {
    let h = history();
    let sub = h.repo.join("src");
    let repo = revisions::open_repository(&sub).unwrap();
    let comparison = revisions::resolve_comparison(&repo, &[]).unwrap();
    assert_eq!(
        fs::canonicalize(&comparison.repo_root).unwrap(),
        fs::canonicalize(&h.repo).unwrap()
    );
}

#[test]
fn outside_a_repository_says_where_to_run() {
    let tmp = tempfile::tempdir().unwrap();
    let err = revisions::open_repository(tmp.path()).err().unwrap();
    assert!(
        matches!(err, RevisionError::NotARepository { .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(message.contains("not inside a git repository"), "{message}");
    assert!(message.contains("git checkout"), "{message}");
}

#[test]
fn bare_repository_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let bare = tmp.path().join("bare.git");
    fs::create_dir_all(&bare).unwrap();
    git(&bare, &["init", "-q", "--bare"]);
    let err = revisions::open_repository(&bare).err().unwrap();
    assert!(
        matches!(err, RevisionError::BareRepository { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("bare"), "{err}");
}

// ---------------------------------------------------------------- resolution

#[test]
fn every_argument_form_resolves_like_git_diff() {
    let h = history();
    let [c1, c2, c3] = [&h.commits[0], &h.commits[1], &h.commits[2]];
    git(&h.repo, &["tag", "v1", c1]);
    git(&h.repo, &["branch", "feature", c2]);
    let before = UserState::capture(&h.repo, &[]);

    let none = resolve(&h.repo, &[]).unwrap();
    assert_eq!(none.base.commit.as_deref(), Some(c3.as_str()));
    assert_eq!(none.base.spec, "HEAD");
    assert!(none.head.working_tree);
    assert_eq!(none.head.commit.as_deref(), Some(c3.as_str()));

    let single = resolve(&h.repo, &["HEAD~2"]).unwrap();
    assert_eq!(single.base.commit.as_deref(), Some(c1.as_str()));
    assert!(single.head.working_tree);

    let two_dot = resolve(&h.repo, &["v1..feature"]).unwrap();
    assert_eq!(two_dot.base.commit.as_deref(), Some(c1.as_str()));
    assert_eq!(two_dot.head.commit.as_deref(), Some(c2.as_str()));
    assert!(!two_dot.head.working_tree);

    let open_ended = resolve(&h.repo, &["HEAD~1.."]).unwrap();
    assert_eq!(open_ended.base.commit.as_deref(), Some(c2.as_str()));
    assert_eq!(open_ended.head.commit.as_deref(), Some(c3.as_str()));

    let pair = resolve(&h.repo, &[&c1[..8], "main"]).unwrap();
    assert_eq!(pair.base.commit.as_deref(), Some(c1.as_str()));
    assert_eq!(pair.head.commit.as_deref(), Some(c3.as_str()));
    assert_eq!(pair.base.spec, &c1[..8]);

    // feature diverges from main at c2: main...feature has base c2 whatever main adds.
    git(&h.repo, &["checkout", "-q", "feature"]);
    write(&h.repo, "feature.txt", "f\n");
    let f1 = commit_all(&h.repo, "feature work");
    git(&h.repo, &["checkout", "-q", "main"]);
    let three_dot = resolve(&h.repo, &["main...feature"]).unwrap();
    assert_eq!(three_dot.base.commit.as_deref(), Some(c2.as_str()));
    assert_eq!(three_dot.head.commit.as_deref(), Some(f1.as_str()));
    assert!(three_dot.base.label().contains("merge-base(main, feature)"));

    let err = resolve(&h.repo, &["a", "b", "c"]).unwrap_err();
    assert!(err.to_string().contains("too many revisions"), "{err}");
    let err = resolve(&h.repo, &["v1..main", "main"]).unwrap_err();
    assert!(err.to_string().contains("range"), "{err}");

    // Resolution is read-only (the checkout above is part of the scenario, so compare refs only).
    let after = UserState::capture(&h.repo, &[]);
    assert_eq!(before.config, after.config);
    assert_eq!(before.stash, after.stash);
}

#[test]
fn upstream_spec_resolves_through_the_tracking_branch() {
    let h = history();
    let clone = h.repo.parent().unwrap().join("clone");
    let url = format!("file://{}", h.repo.display());
    git(
        h.repo.parent().unwrap(),
        &["clone", "-q", &url, clone.to_str().unwrap()],
    );
    git(&clone, &["config", "user.name", "Perf Tester"]);
    git(&clone, &["config", "user.email", "perf@example.invalid"]);
    write(&clone, "local.txt", "ahead of upstream\n");
    let local = commit_all(&clone, "local work");

    let comparison = resolve(&clone, &["main@{u}", "HEAD"]).unwrap();
    assert_eq!(
        comparison.base.commit.as_deref(),
        Some(h.commits[2].as_str())
    );
    assert_eq!(comparison.head.commit.as_deref(), Some(local.as_str()));
    assert_eq!(comparison.base.spec, "main@{u}");

    // No upstream: the error names the spec.
    git(&clone, &["branch", "-q", "lonely"]);
    let err = resolve(&clone, &["lonely@{u}"]).unwrap_err();
    assert!(err.to_string().contains("lonely@{u}"), "{err}");
}

#[test]
fn a_name_that_is_both_branch_and_tag_is_ambiguous() {
    let h = history();
    git(&h.repo, &["branch", "release", &h.commits[1]]);
    git(&h.repo, &["tag", "release", &h.commits[0]]);
    let before = UserState::capture(&h.repo, &[]);
    let err = resolve(&h.repo, &["release"]).unwrap_err();
    assert!(matches!(err, RevisionError::Ambiguous { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("`release`"), "{message}");
    assert!(message.contains("branch release"), "{message}");
    assert!(message.contains("tag release"), "{message}");
    // Spelled out, both work.
    let ok = resolve(&h.repo, &["refs/tags/release", "refs/heads/release~1"]).unwrap();
    assert_eq!(ok.base.commit.as_deref(), Some(h.commits[0].as_str()));
    assert_eq!(ok.head.commit.as_deref(), Some(h.commits[0].as_str()));
    assert_eq!(before, UserState::capture(&h.repo, &[]));
}

#[test]
fn a_short_sha_matching_several_objects_is_ambiguous() {
    let h = history();
    let repo = open(&h.repo);
    // Write blobs until two share a 4-digit prefix (birthday bound: a few hundred).
    let mut seen: BTreeMap<String, git2::Oid> = BTreeMap::new();
    let prefix = (0..5000)
        .find_map(|i| {
            let id = repo.blob(format!("blob {i}\n").as_bytes()).unwrap();
            let prefix = id.to_string()[..4].to_string();
            seen.insert(prefix.clone(), id).map(|_| prefix)
        })
        .expect("a 4-digit collision among 5000 blobs");
    let err = revisions::resolve_comparison(&repo, std::slice::from_ref(&prefix)).unwrap_err();
    assert!(matches!(err, RevisionError::Ambiguous { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains(&format!("`{prefix}`")), "{message}");
    assert!(message.contains(&format!("blob {prefix}")), "{message}");
}

#[test]
fn unknown_and_non_commit_revisions_name_the_spec() {
    let h = history();
    let before = UserState::capture(&h.repo, &[]);
    let err = resolve(&h.repo, &["no-such-branch"]).unwrap_err();
    assert!(matches!(err, RevisionError::Unknown { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("unknown revision `no-such-branch`"),
        "{err}"
    );

    let err = resolve(&h.repo, &["HEAD~10"]).unwrap_err();
    assert!(err.to_string().contains("HEAD~10"), "{err}");

    let blob = git(&h.repo, &["rev-parse", "HEAD:Cargo.toml"]);
    let err = resolve(&h.repo, &[&blob]).unwrap_err();
    assert!(matches!(err, RevisionError::NotACommit { .. }), "{err:?}");
    assert!(err.to_string().contains("blob"), "{err}");
    assert_eq!(before, UserState::capture(&h.repo, &[]));
}

#[test]
fn unrelated_histories_have_no_merge_base() {
    let h = history();
    git(&h.repo, &["checkout", "-q", "--orphan", "island"]);
    write(&h.repo, "island.txt", "alone\n");
    commit_all(&h.repo, "island");
    git(&h.repo, &["checkout", "-q", "main"]);
    let err = resolve(&h.repo, &["main...island"]).unwrap_err();
    assert!(matches!(err, RevisionError::NoMergeBase { .. }), "{err:?}");
    assert!(err.to_string().contains("main..island"), "{err}");
}

#[test]
fn an_empty_repository_has_no_head_to_compare() {
    let (_tmp, root) = awkward_tempdir();
    init_repo(&root);
    let err = resolve(&root, &[]).unwrap_err();
    assert!(matches!(err, RevisionError::NoCommits { .. }), "{err:?}");

    // Its working tree can still be materialised (snapshot without a parent).
    write(&root, "src/main.rs", "fn main() {}\n");
    write(&root, ".gitignore", "/target/\n");
    let repo = open(&root);
    let rev = Revision::working_tree(&repo);
    assert_eq!(rev.commit, None);
    let before = UserState::capture(&root, &["target"]);
    let slot = worktree::materialise(&repo, &perfdiff_dir(&root), "head", &rev).unwrap();
    assert_eq!(slot_files(&slot)["src/main.rs"], "fn main() {}\n");
    assert_eq!(before, UserState::capture(&root, &["target"]));
}

#[test]
fn shallow_clones_say_how_to_fetch_the_missing_history() {
    let h = history();
    git(&h.repo, &["checkout", "-q", "-b", "side", &h.commits[1]]);
    write(&h.repo, "side.txt", "side\n");
    commit_all(&h.repo, "side work");
    git(&h.repo, &["checkout", "-q", "main"]);
    let shallow = h.repo.parent().unwrap().join("shallow");
    let url = format!("file://{}", h.repo.display());
    git(
        h.repo.parent().unwrap(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            "--no-single-branch",
            &url,
            shallow.to_str().unwrap(),
        ],
    );
    let before = UserState::capture(&shallow, &[]);

    let err = resolve(&shallow, &["HEAD~1"]).unwrap_err();
    assert!(matches!(err, RevisionError::Shallow { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("HEAD~1"), "{message}");
    assert!(message.contains("git fetch --deepen=N"), "{message}");
    assert!(message.contains("git fetch --unshallow"), "{message}");

    // A commit beyond the cut, by sha.
    let err = resolve(&shallow, &[&h.commits[0]]).unwrap_err();
    assert!(matches!(err, RevisionError::Shallow { .. }), "{err:?}");

    // The merge base of two branch tips is below the cut.
    let err = resolve(&shallow, &["origin/main...origin/side"]).unwrap_err();
    assert!(
        matches!(err, RevisionError::ShallowMergeBase { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("--deepen"), "{err}");

    // A typo is still a typo.
    let err = resolve(&shallow, &["mian"]).unwrap_err();
    assert!(matches!(err, RevisionError::Unknown { .. }), "{err:?}");
    assert_eq!(before, UserState::capture(&shallow, &[]));
}

// ---------------------------------------------------------------- materialise

#[test]
fn switching_a_slot_rewrites_only_the_files_that_differ() {
    let h = history();
    let repo = open(&h.repo);
    let pd = perfdiff_dir(&h.repo);
    let before = UserState::capture(&h.repo, &["target"]);

    let slot = worktree::materialise(&repo, &pd, "base", &commit_rev(&h.commits[0])).unwrap();
    assert_eq!(slot, pd.join("worktrees/target/package/base"));
    let files = slot_files(&slot);
    assert_eq!(files["src/lib.rs"], "pub fn one() -> u32 { 1 }\n");
    assert_eq!(files["benches/old.rs"], "// only in c1\n");
    assert!(!files.contains_key("benches/new.rs"));
    let slot_repo = git2::Repository::open(&slot).unwrap();
    assert!(slot_repo.head_detached().unwrap());
    assert_eq!(git(&slot, &["rev-parse", "HEAD"]), h.commits[0]);
    assert_eq!(git(&slot, &["config", "--local", "gc.auto"]), "0");
    assert_eq!(
        git(&slot, &["status", "--porcelain"]),
        "",
        "slot index matches its files"
    );

    let stable = ["Cargo.toml", "src/unchanged.rs", ".gitignore"];
    let stable_before = mtimes(&slot, &stable);
    let lib_before = mtimes(&slot, &["src/lib.rs"]);
    std::thread::sleep(Duration::from_millis(30));

    let again = worktree::materialise(&repo, &pd, "base", &commit_rev(&h.commits[1])).unwrap();
    assert_eq!(again, slot);
    let files = slot_files(&slot);
    assert_eq!(files["src/lib.rs"], "pub fn one() -> u32 { 2 }\n");
    assert_eq!(files["benches/new.rs"], "// added in c2\n");
    assert!(
        !files.contains_key("benches/old.rs"),
        "deleted file removed"
    );
    assert_eq!(
        mtimes(&slot, &stable),
        stable_before,
        "unchanged files untouched"
    );
    assert_ne!(mtimes(&slot, &["src/lib.rs"]), lib_before);

    // The other slot is independent.
    let head = worktree::materialise(&repo, &pd, "head", &commit_rev(&h.commits[2])).unwrap();
    assert_eq!(slot_files(&head)["README.md"], "c3\n");
    assert_eq!(
        slot_files(&slot)["src/lib.rs"],
        "pub fn one() -> u32 { 2 }\n"
    );

    // Materialising the same commit again touches nothing.
    let all: Vec<String> = slot_files(&head).into_keys().collect();
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let unchanged = mtimes(&head, &all);
    std::thread::sleep(Duration::from_millis(30));
    worktree::materialise(&repo, &pd, "head", &commit_rev(&h.commits[2])).unwrap();
    assert_eq!(mtimes(&head, &all), unchanged);

    assert_eq!(before, UserState::capture(&h.repo, &["target"]));
}

#[test]
fn a_cargo_target_dir_inside_the_slot_survives_switches() {
    let h = history();
    let repo = open(&h.repo);
    let pd = perfdiff_dir(&h.repo);
    let slot = worktree::materialise(&repo, &pd, "base", &commit_rev(&h.commits[0])).unwrap();
    write(&slot, "target/debug/artifact", "built\n");
    worktree::materialise(&repo, &pd, "base", &commit_rev(&h.commits[2])).unwrap();
    assert_eq!(
        fs::read_to_string(slot.join("target/debug/artifact")).unwrap(),
        "built\n"
    );
}

#[test]
fn working_tree_snapshot_has_edits_and_untracked_files_but_not_ignored_ones() {
    let h = history();
    let pd = perfdiff_dir(&h.repo);
    // A stash entry, a staged edit, an unstaged edit, a deletion, untracked and ignored files.
    write(&h.repo, "README.md", "stashed edit\n");
    git(&h.repo, &["stash", "-q"]);
    write(&h.repo, "src/lib.rs", "pub fn one() -> u32 { 42 }\n");
    write(&h.repo, "Cargo.toml", "[package]\nname = \"staged\"\n");
    git(&h.repo, &["add", "Cargo.toml"]);
    fs::remove_file(h.repo.join("src/unchanged.rs")).unwrap();
    write(&h.repo, "src/untracked.rs", "// new file\n");
    write(
        &h.repo,
        "new dir/deep/ünïcode file.rs",
        "// untracked dir\n",
    );
    write(&h.repo, "new dir/debug.log", "ignored by *.log\n");
    write(&h.repo, "run.log", "ignored\n");
    write(&h.repo, "target/debug/junk", "ignored target\n");
    // An untracked cargo target dir that .gitignore forgot, and an untracked nested repository.
    write(
        &h.repo,
        "other-target/CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55\n",
    );
    write(&h.repo, "other-target/debug/big", "artefact\n");
    init_repo(&h.repo.join("vendored"));
    write(&h.repo, "vendored/file", "nested repo\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink("lib.rs", h.repo.join("src/link.rs")).unwrap();
    fs::create_dir_all(&pd).unwrap();
    let before = UserState::capture(&h.repo, &["target"]);

    let repo = open(&h.repo);
    let rev = revisions::resolve_comparison(&repo, &[]).unwrap().head;
    assert_eq!(rev.commit.as_deref(), Some(h.commits[2].as_str()));
    let slot = worktree::materialise(&repo, &pd, "head", &rev).unwrap();
    let files = slot_files(&slot);
    assert_eq!(files["src/lib.rs"], "pub fn one() -> u32 { 42 }\n");
    assert_eq!(files["Cargo.toml"], "[package]\nname = \"staged\"\n");
    assert_eq!(
        files["README.md"], "c3\n",
        "stashed edits are not part of the working tree"
    );
    assert_eq!(files["src/untracked.rs"], "// new file\n");
    assert_eq!(files["new dir/deep/ünïcode file.rs"], "// untracked dir\n");
    assert!(
        !files.contains_key("src/unchanged.rs"),
        "deleted in the working tree"
    );
    for absent in [
        "run.log",
        "new dir/debug.log",
        "target/debug/junk",
        "other-target/debug/big",
        "vendored/file",
    ] {
        assert!(
            !files.contains_key(absent),
            "{absent} must not be in the snapshot"
        );
    }
    #[cfg(unix)]
    assert_eq!(
        fs::read_link(slot.join("src/link.rs")).unwrap(),
        Path::new("lib.rs")
    );

    assert_eq!(before, UserState::capture(&h.repo, &["target"]));

    // A later edit is picked up, and only that file is rewritten.
    let untouched = mtimes(&slot, &["Cargo.toml", "src/untracked.rs"]);
    std::thread::sleep(Duration::from_millis(30));
    write(&h.repo, "src/untracked.rs", "// edited again\n");
    let before = UserState::capture(&h.repo, &["target"]);
    worktree::materialise(&repo, &pd, "head", &rev).unwrap();
    assert_eq!(slot_files(&slot)["src/untracked.rs"], "// edited again\n");
    assert_eq!(mtimes(&slot, &["Cargo.toml"]), untouched[..1]);

    assert_eq!(before, UserState::capture(&h.repo, &["target"]));
}

#[test]
fn the_snapshot_leaves_out_an_unignored_perfdiff_dir() {
    let h = history();
    fs::write(h.repo.join(".gitignore"), "").unwrap();
    commit_all(&h.repo, "ignore nothing");
    let pd = perfdiff_dir(&h.repo);
    let repo = open(&h.repo);
    let rev = Revision::working_tree(&repo);
    let slot = worktree::materialise(&repo, &pd, "head", &rev).unwrap();
    write(
        &h.repo,
        "target/debug/out",
        "not a cargo dir yet, but holds perfdiff\n",
    );
    let before = UserState::capture(&h.repo, &["target"]);
    worktree::materialise(&repo, &pd, "head", &rev).unwrap();
    let files = slot_files(&slot);
    assert!(files.keys().all(|f| !f.starts_with("target")), "{files:?}");
    assert_eq!(files["src/lib.rs"], "pub fn one() -> u32 { 2 }\n");
    assert_eq!(before, UserState::capture(&h.repo, &["target"]));
}

#[test]
fn a_linked_worktree_of_the_user_works_as_the_repository() {
    let h = history();
    let linked = h.repo.parent().unwrap().join("linked wt");
    git(
        &h.repo,
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            linked.to_str().unwrap(),
            &h.commits[0],
        ],
    );
    write(&linked, "src/lib.rs", "pub fn one() -> u32 { 7 }\n");
    let before = UserState::capture(&linked, &["target"]);
    let repo = open(&linked.join("src"));
    let comparison = revisions::resolve_comparison(&repo, &[]).unwrap();
    assert_eq!(
        comparison.base.commit.as_deref(),
        Some(h.commits[0].as_str())
    );
    let pd = perfdiff_dir(&linked);
    let base = worktree::materialise(&repo, &pd, "base", &comparison.base).unwrap();
    let head = worktree::materialise(&repo, &pd, "head", &comparison.head).unwrap();
    assert_eq!(
        slot_files(&base)["src/lib.rs"],
        "pub fn one() -> u32 { 1 }\n"
    );
    assert_eq!(
        slot_files(&head)["src/lib.rs"],
        "pub fn one() -> u32 { 7 }\n"
    );
    assert_eq!(before, UserState::capture(&linked, &["target"]));
}

#[test]
fn damaged_slots_are_repaired() {
    let h = history();
    let repo = open(&h.repo);
    let pd = perfdiff_dir(&h.repo);
    let rev = commit_rev(&h.commits[2]);
    let expected = {
        let slot = worktree::materialise(&repo, &pd, "base", &rev).unwrap();
        slot_files(&slot)
    };
    let slot = pd.join("worktrees/target/package/base");
    let before = UserState::capture(&h.repo, &["target"]);

    // Deleted and edited files, a stray file, a stale lock from a killed checkout.
    fs::remove_file(slot.join("src/lib.rs")).unwrap();
    fs::remove_dir_all(slot.join("benches")).unwrap();
    write(&slot, "src/unchanged.rs", "scribbled over\n");
    write(
        &slot,
        "benches/stray.rs",
        "// left over from a half checkout\n",
    );
    fs::write(slot.join(".git/index.lock"), "").unwrap();
    worktree::materialise(&repo, &pd, "base", &rev).unwrap();
    assert_eq!(slot_files(&slot), expected);

    // Its git directory gone: rebuilt.
    fs::remove_dir_all(slot.join(".git")).unwrap();
    write(&slot, "junk.txt", "not ours\n");
    worktree::materialise(&repo, &pd, "base", &rev).unwrap();
    assert_eq!(slot_files(&slot), expected);

    // A plain directory that is not a worktree at all.
    fs::remove_dir_all(&slot).unwrap();
    write(&slot, "random/file.txt", "whatever\n");
    worktree::materialise(&repo, &pd, "base", &rev).unwrap();
    assert_eq!(slot_files(&slot), expected);

    // A corrupted slot repository (unreadable HEAD): rebuilt.
    fs::write(slot.join(".git/HEAD"), "garbage").unwrap();
    worktree::materialise(&repo, &pd, "base", &rev).unwrap();
    assert_eq!(slot_files(&slot), expected);
    assert_eq!(git(&slot, &["rev-parse", "HEAD"]), h.commits[2]);

    assert_eq!(before, UserState::capture(&h.repo, &["target"]));
}

#[test]
fn a_pruned_linked_worktree_in_the_slot_is_replaced() {
    let h = history();
    let pd = perfdiff_dir(&h.repo);
    let slot = pd.join("worktrees/target/package/head");
    // What an older tool (or a user) may leave: a linked worktree whose registration was pruned.
    fs::create_dir_all(slot.parent().unwrap()).unwrap();
    git(
        &h.repo,
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            slot.to_str().unwrap(),
            &h.commits[0],
        ],
    );
    let moved = pd.join("moved-away");
    fs::rename(&slot, &moved).unwrap();
    git(&h.repo, &["worktree", "prune"]);
    fs::rename(&moved, &slot).unwrap();
    assert!(slot.join(".git").is_file());
    let before = UserState::capture(&h.repo, &["target"]);
    assert_eq!(before.worktrees.matches("worktree ").count(), 1);

    let repo = open(&h.repo);
    worktree::materialise(&repo, &pd, "head", &commit_rev(&h.commits[1])).unwrap();
    assert_eq!(
        slot_files(&slot)["src/lib.rs"],
        "pub fn one() -> u32 { 2 }\n"
    );
    assert!(slot.join(".git").is_dir());

    // Our slots are not registered, so pruning does nothing to them.
    git(&h.repo, &["worktree", "prune"]);
    worktree::materialise(&repo, &pd, "head", &commit_rev(&h.commits[2])).unwrap();
    assert_eq!(slot_files(&slot)["README.md"], "c3\n");
    assert_eq!(before, UserState::capture(&h.repo, &["target"]));
}

#[test]
fn a_missing_commit_fails_without_touching_the_slot() {
    let h = history();
    let repo = open(&h.repo);
    let pd = perfdiff_dir(&h.repo);
    let slot = worktree::materialise(&repo, &pd, "base", &commit_rev(&h.commits[0])).unwrap();
    let files = slot_files(&slot);
    let before = UserState::capture(&h.repo, &["target"]);
    let bogus = commit_rev(&"ab".repeat(20));
    let err = worktree::materialise(&repo, &pd, "base", &bogus).unwrap_err();
    assert!(
        matches!(err, WorktreeError::MissingCommit { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("abababa"), "{err}");
    assert_eq!(slot_files(&slot), files);
    let err =
        worktree::materialise(&repo, &pd, "../escape", &commit_rev(&h.commits[0])).unwrap_err();
    assert!(matches!(err, WorktreeError::InvalidSlot { .. }), "{err:?}");
    assert_eq!(before, UserState::capture(&h.repo, &["target"]));
}

#[test]
fn submodules_are_checked_out_inside_the_slot() {
    let (_tmp, root) = awkward_tempdir();
    let lib = root.join("shared lib");
    init_repo(&lib);
    write(&lib, "src/lib.rs", "pub const V: u32 = 1;\n");
    let lib_v1 = commit_all(&lib, "v1");
    let app = root.join("app");
    init_repo(&app);
    write(&app, ".gitignore", "/target\n");
    write(&app, "Cargo.toml", "[package]\nname = \"app\"\n");
    git(
        &app,
        &[
            "submodule",
            "add",
            "-q",
            lib.to_str().unwrap(),
            "vendor/shared",
        ],
    );
    let app_c1 = commit_all(&app, "add submodule");
    write(&lib, "src/lib.rs", "pub const V: u32 = 2;\n");
    commit_all(&lib, "v2");
    git(
        &app.join("vendor/shared"),
        &["pull", "-q", "origin", "main"],
    );
    let app_c2 = commit_all(&app, "bump submodule");
    let before = UserState::capture(&app, &["target"]);

    let repo = open(&app);
    let pd = perfdiff_dir(&app);
    let slot = worktree::materialise(&repo, &pd, "base", &commit_rev(&app_c1)).unwrap();
    assert_eq!(
        fs::read_to_string(slot.join("vendor/shared/src/lib.rs")).unwrap(),
        "pub const V: u32 = 1;\n"
    );
    assert_eq!(
        git(&slot.join("vendor/shared"), &["rev-parse", "HEAD"]),
        lib_v1
    );
    worktree::materialise(&repo, &pd, "base", &commit_rev(&app_c2)).unwrap();
    assert_eq!(
        fs::read_to_string(slot.join("vendor/shared/src/lib.rs")).unwrap(),
        "pub const V: u32 = 2;\n"
    );
    // The working tree's submodule is at its checked-out commit too.
    let wt = revisions::resolve_comparison(&repo, &[]).unwrap().head;
    let head = worktree::materialise(&repo, &pd, "head", &wt).unwrap();
    assert_eq!(
        fs::read_to_string(head.join("vendor/shared/src/lib.rs")).unwrap(),
        "pub const V: u32 = 2;\n"
    );
    assert_eq!(before, UserState::capture(&app, &["target"]));

    // A gitlink to a commit the user's copy of the submodule never fetched: a clear error.
    write(&lib, "src/lib.rs", "pub const V: u32 = 3;\n");
    let lib_v3 = commit_all(&lib, "v3, not fetched by the app");
    let cacheinfo = format!("160000,{lib_v3},vendor/shared");
    git(&app, &["update-index", "--cacheinfo", &cacheinfo]);
    git(
        &app,
        &["commit", "-q", "-m", "point at an unfetched commit"],
    );
    let app_c3 = git(&app, &["rev-parse", "HEAD"]);
    git(&app, &["reset", "-q", "--hard", &app_c2]);
    git(&app, &["submodule", "update", "-q"]);
    let before = UserState::capture(&app, &["target"]);
    let err = worktree::materialise(&repo, &pd, "base", &commit_rev(&app_c3)).unwrap_err();
    assert!(matches!(err, WorktreeError::Submodule { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("vendor/shared"), "{message}");
    assert!(message.contains("git submodule update"), "{message}");
    assert_eq!(before, UserState::capture(&app, &["target"]));

    // In a clone that never initialised the submodule, it stays empty, as in the user's checkout.
    let clone = root.join("clone");
    let url = format!("file://{}", app.display());
    git(&root, &["clone", "-q", &url, clone.to_str().unwrap()]);
    let repo = open(&clone);
    let slot =
        worktree::materialise(&repo, &perfdiff_dir(&clone), "base", &commit_rev(&app_c2)).unwrap();
    assert!(slot.join("Cargo.toml").is_file());
    assert_eq!(fs::read_dir(slot.join("vendor/shared")).unwrap().count(), 0);
}

// ---------------------------------------------------------------- lock

#[test]
fn a_second_run_waits_for_the_lock_then_gives_up_clearly() {
    let (_tmp, root) = awkward_tempdir();
    let pd = root.join("perfdiff");
    let first = worktree::lock_run(&pd, Duration::ZERO).unwrap();
    assert_eq!(first.path(), pd.join("lock"));
    assert_eq!(
        fs::read_to_string(first.path()).unwrap().trim(),
        std::process::id().to_string()
    );

    let started = Instant::now();
    let err = worktree::lock_run(&pd, Duration::from_millis(300)).unwrap_err();
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(matches!(err, WorktreeError::Locked { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("another cargo-perfdiff run is using"),
        "{message}"
    );
    assert!(message.contains("my prøject ü"), "{message}");

    // Released while a second run waits: it gets the lock.
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        drop(first);
    });
    let second = worktree::lock_run(&pd, Duration::from_secs(5)).unwrap();
    releaser.join().unwrap();
    drop(second);
    // Released for good. A short wait, not zero: a child process another test forks at this
    // moment holds the inherited descriptor (and with it the lock) until it calls exec.
    worktree::lock_run(&pd, Duration::from_secs(2)).unwrap();
}
