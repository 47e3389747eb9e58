//! The commits a bisection searches, read from real git histories with a merge: the first-parent
//! line, every commit with its ancestry, and clean errors for ranges that cannot be bisected. No
//! build, no measuring.

use crate::support;

use std::path::Path;

use cargo_perfdiff::orchestrate::bisect::history::{self, HistoryError};
use cargo_perfdiff::orchestrate::bisect::search::{Direction, Evidence, Search, Status};
use support::*;

fn commit(repo: &Path, file: &str, message: &str) -> String {
    std::fs::write(repo.join(file), message).unwrap();
    git_ok(repo, &["add", "-A"]);
    git_ok(repo, &["commit", "-q", "-m", message]);
    rev_parse(repo, "HEAD")
}

/// c0 ─ c1 ─ c2 ─── m ─ c3   (main; m merges side)
///         └ s1 ─ s2 ┘
struct Merged {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
    c1: String,
    c2: String,
    s1: String,
    s2: String,
    m: String,
    c3: String,
}

fn merged_history() -> Merged {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    git_ok(&path, &["init", "-q"]);
    commit(&path, "a", "c0");
    let c1 = commit(&path, "a", "c1");
    git_ok(&path, &["checkout", "-q", "-b", "side"]);
    let s1 = commit(&path, "b", "s1");
    let s2 = commit(&path, "b", "s2");
    git_ok(&path, &["checkout", "-q", "main"]);
    let c2 = commit(&path, "c", "c2");
    git_ok(&path, &["merge", "-q", "--no-ff", "-m", "m", "side"]);
    let m = rev_parse(&path, "HEAD");
    let c3 = commit(&path, "a", "c3");
    Merged {
        _dir: dir,
        path,
        c1,
        c2,
        s1,
        s2,
        m,
        c3,
    }
}

fn shas(history: &history::History) -> Vec<String> {
    history.commits.iter().map(|c| c.sha.clone()).collect()
}

fn read(h: &Merged, good: &str, bad: &str, all: bool) -> Result<history::History, HistoryError> {
    let repo = git2::Repository::open(&h.path).unwrap();
    history::read(&repo, good, bad, all, ("GOOD", "BAD"))
}

#[test]
fn the_first_parent_line_counts_a_merge_as_one_commit() {
    let h = merged_history();
    let line = read(&h, &h.c1, &h.c3, false).unwrap();
    assert_eq!(shas(&line), [h.c2.clone(), h.m.clone(), h.c3.clone()]);
    assert_eq!(line.commits[1].subject, "m");
    assert_eq!(line.range.len(), 3);
}

#[test]
fn all_commits_come_after_their_ancestors_and_every_culprit_is_found() {
    let h = merged_history();
    let all = read(&h, &h.c1, &h.c3, true).unwrap();
    let order = shas(&all);
    assert_eq!(order.len(), 5);
    let at = |sha: &String| order.iter().position(|s| s == sha).unwrap();
    assert!(at(&h.s1) < at(&h.s2) && at(&h.s2) < at(&h.m) && at(&h.c2) < at(&h.m));
    assert_eq!(order.last(), Some(&h.c3));
    // Whichever commit made the change, the search over the real ancestry finds it.
    let repo = git2::Repository::open(&h.path).unwrap();
    let oid = |sha: &str| git2::Oid::from_str(sha).unwrap();
    for culprit in &order {
        let mut search = Search::new(
            all.range.clone(),
            vec![("b".to_string(), Direction::Regressed)],
            Search::decision_budget(order.len(), 1),
        );
        while let Some(probe) = search.next_probe() {
            let measured = &order[probe.commit];
            let has = measured == culprit
                || repo
                    .graph_descendant_of(oid(measured), oid(culprit))
                    .unwrap();
            search.count_attempt(0);
            let evidence = if has {
                Evidence::Present
            } else {
                Evidence::Absent
            };
            search.apply(0, probe.commit, evidence);
        }
        assert_eq!(
            search.targets()[0].status(),
            &Status::Culprit {
                commit: at(culprit)
            },
            "culprit {culprit}"
        );
    }
}

#[test]
fn ranges_that_cannot_be_bisected_are_clean_errors() {
    let h = merged_history();
    assert!(matches!(
        read(&h, &h.c3, &h.c1, false),
        Err(HistoryError::NotAncestor { .. })
    ));
    assert!(matches!(
        read(&h, &h.c1, &h.c1, false),
        Err(HistoryError::Empty { .. })
    ));
    let side = read(&h, &h.s1, &h.c3, false).err().unwrap();
    assert!(matches!(side, HistoryError::NotOnFirstParentLine { .. }));
    assert!(side.to_string().contains("--all-commits"), "{side}");
    // From a side-branch commit, every commit of GOOD..BAD: c2 too, which GOOD lacks.
    let all = read(&h, &h.s1, &h.c3, true).unwrap();
    assert_eq!(all.commits.len(), 4);
    assert!(shas(&all).contains(&h.c2) && shas(&all).contains(&h.s2));
}

#[test]
fn the_diff_stat_names_the_files_a_commit_changed() {
    let h = merged_history();
    let repo = git2::Repository::open(&h.path).unwrap();
    let stat = history::diff_stat(&repo, &h.c2).unwrap();
    assert!(
        stat.contains(" c ") && stat.contains("1 file changed"),
        "{stat}"
    );
}

#[test]
fn bisecting_backwards_is_one_clean_error_line_and_touches_nothing() {
    let (_dir, repo) = demo_repo(&strong_changes());
    let before = RepoState::capture(&repo);
    let output = cargo_perfdiff(&repo, &["bisect", "HEAD", "HEAD~1"]);
    assert_clean_error(&output, 2, "is not an ancestor of");
    assert_eq!(RepoState::capture(&repo), before);
}
