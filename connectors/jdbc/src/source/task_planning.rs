//! Task planning: tables split into contiguous groups as Kafka's
//! `ConnectorUtils.groupPartitions` does, one task configuration per group.

use connect_api::ConfigMap;

use crate::dialect::Dialect;

use super::config::TABLES;
use super::table_id::TableId;

/// Splits `items` into `min(len, groups)` contiguous chunks in order, the first
/// `len mod n` of them one larger (5 items, 2 groups: `[1,2,3] [4,5]`).
pub fn group_partitions<T: Clone>(items: &[T], groups: usize) -> Vec<Vec<T>> {
    let n = groups.min(items.len());
    if n == 0 {
        return Vec::new();
    }
    let (per, extra) = (items.len() / n, items.len() % n);
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for g in 0..n {
        let len = per + usize::from(g < extra);
        out.push(items[start..start + len].to_vec());
        start += len;
    }
    out
}

/// Task configurations for `tables` and at most `max_tasks` tasks: each is `base` plus
/// `tables` = the group's quoted names, comma-joined.
pub fn plan_table_tasks(
    base: &ConfigMap,
    tables: &[TableId],
    max_tasks: usize,
    dialect: Dialect,
    quote: bool,
) -> Vec<ConfigMap> {
    group_partitions(tables, max_tasks.max(1))
        .into_iter()
        .map(|group| {
            let mut config = base.clone();
            let joined = group
                .iter()
                .map(|t| t.quoted(dialect, quote))
                .collect::<Vec<_>>()
                .join(",");
            config.insert(TABLES.to_owned(), joined);
            config
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_chunks_first_ones_larger() {
        assert_eq!(group_partitions(&[1, 2, 3], 2), vec![vec![1, 2], vec![3]]);
        assert_eq!(
            group_partitions(&[1, 2, 3], 5),
            vec![vec![1], vec![2], vec![3]]
        );
        assert_eq!(
            group_partitions(&[1, 2, 3, 4, 5], 2),
            vec![vec![1, 2, 3], vec![4, 5]]
        );
        assert!(group_partitions::<i32>(&[], 3).is_empty());
    }

    #[test]
    fn three_tables_on_two_tasks_then_five() {
        let tables: Vec<_> = ["a", "b", "c"]
            .iter()
            .map(|n| TableId::new(Some("public"), n))
            .collect();
        let base: ConfigMap = [("mode".to_owned(), "bulk".to_owned())].into();
        let two = plan_table_tasks(&base, &tables, 2, Dialect::Postgres, true);
        assert_eq!(two.len(), 2);
        assert_eq!(two[0]["tables"], r#""public"."a","public"."b""#);
        assert_eq!(two[1]["tables"], r#""public"."c""#);
        assert_eq!(two[0]["mode"], "bulk");
        let five = plan_table_tasks(&base, &tables, 5, Dialect::Postgres, true);
        assert_eq!(five.len(), 3);
        assert_eq!(five[2]["tables"], r#""public"."c""#);
    }
}
