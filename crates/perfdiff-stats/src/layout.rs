//! Code layout as a level of the analysis: values grouped by the layout they were measured in.
//!
//! A fork runs one executable, and one executable is one code layout; the forks of a run go
//! through the layouts of each revision in turn (`crate::steps::build::layout`). Forks of one layout share its
//! effect, so they are not independent replicates of the revision (the paired interval of
//! [`super::rounds`] averages a layout's rounds for the same reason), and how far a side's layout
//! means lie apart is the benchmark's *layout spread*, reported as information.
//!
//! Invariants: grouping orders the layouts by index; values without a layout form
//! no group of their own but leave the input ungrouped (a recording from before layouts were
//! measured has none, and is analysed per fork exactly as before); the spread is scale-free (a
//! fraction of the mean) and needs at least two layouts.

use std::collections::BTreeMap;

use super::descriptive::{mean, std_dev};

/// `values` (one per fork) averaged per layout, in layout order; `values` itself when any
/// value has no layout or the lengths differ (nothing to group by).
pub fn layout_means(values: &[f64], layouts: &[Option<usize>]) -> Vec<f64> {
    if values.len() != layouts.len() || layouts.iter().any(Option::is_none) {
        return values.to_vec();
    }
    let mut groups: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for (&value, layout) in values.iter().zip(layouts) {
        groups
            .entry(layout.expect("checked"))
            .or_default()
            .push(value);
    }
    groups.values().map(|group| mean(group)).collect()
}

/// How many distinct layouts `layouts` names (0 when any fork has none).
pub fn distinct_layouts(layouts: &[Option<usize>]) -> usize {
    if layouts.iter().any(Option::is_none) {
        return 0;
    }
    let mut seen: Vec<usize> = layouts.iter().flatten().copied().collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

/// The standard deviation of `layout_means` as a fraction of their mean: how far a benchmark
/// moves, typically, between layouts of the same source (and, with one fork per layout, between
/// processes). Reported as information: the paired interval already carries whatever of it the
/// two sides do not share. `None` for fewer than two means or a non-positive or non-finite mean.
pub fn relative_sd(layout_means: &[f64]) -> Option<f64> {
    if layout_means.len() < 2 || layout_means.iter().any(|m| !m.is_finite()) {
        return None;
    }
    let centre = mean(layout_means);
    (centre > 0.0).then(|| std_dev(layout_means) / centre)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forks_of_one_layout_count_once() {
        let values = [10.0, 20.0, 12.0, 22.0];
        let layouts = [Some(0), Some(1), Some(0), Some(1)];
        assert_eq!(layout_means(&values, &layouts), vec![11.0, 21.0]);
        assert_eq!(distinct_layouts(&layouts), 2);
    }

    #[test]
    fn without_layouts_every_fork_is_its_own_value() {
        let values = [10.0, 20.0, 12.0];
        assert_eq!(layout_means(&values, &[None, None, None]), values.to_vec());
        assert_eq!(
            layout_means(&values, &[Some(0), None, Some(1)]),
            values.to_vec()
        );
        assert_eq!(layout_means(&values, &[Some(0)]), values.to_vec());
        assert_eq!(distinct_layouts(&[None, None]), 0);
    }

    #[test]
    fn the_spread_is_the_relative_sd_of_the_layout_means() {
        let spread = relative_sd(&[9.0, 11.0, 10.0]).unwrap();
        assert!((spread - 0.1).abs() < 1e-12, "{spread}");
        // scale-free
        let scaled = relative_sd(&[900.0, 1100.0, 1000.0]).unwrap();
        assert!((scaled - spread).abs() < 1e-12);
        assert_eq!(relative_sd(&[10.0]), None);
        assert_eq!(relative_sd(&[10.0, f64::NAN]), None);
        assert_eq!(relative_sd(&[0.0, 0.0]), None);
    }
}
