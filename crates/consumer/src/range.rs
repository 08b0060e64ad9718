//! Kafka's `range` assignor (the Java consumer's `RangeAssignor`): per topic, the members that
//! subscribe to it in member id order each get a contiguous range of its partitions, the first
//! `partitions % members` one more.

use std::collections::BTreeMap;

/// A member's subscription, as the leader reads it from JoinGroup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberSubscription {
    /// The member id.
    pub member_id: String,
    /// `group.instance.id`, which orders members before their member id when set.
    pub instance_id: Option<String>,
    /// Topics it subscribes to.
    pub topics: Vec<String>,
}

/// Partitions per member id: `topics` gives each topic's partition count.
pub fn assign(
    members: &[MemberSubscription],
    topics: &BTreeMap<String, i32>,
) -> BTreeMap<String, BTreeMap<String, Vec<i32>>> {
    let mut out: BTreeMap<String, BTreeMap<String, Vec<i32>>> = members
        .iter()
        .map(|m| (m.member_id.clone(), BTreeMap::new()))
        .collect();
    for (topic, &count) in topics {
        let mut subscribed: Vec<&MemberSubscription> = members
            .iter()
            .filter(|m| m.topics.iter().any(|t| t == topic))
            .collect();
        if subscribed.is_empty() || count <= 0 {
            continue;
        }
        subscribed.sort_by(|a, b| {
            (a.instance_id.as_deref(), &a.member_id).cmp(&(b.instance_id.as_deref(), &b.member_id))
        });
        // Java sorts members with an instance id before those without.
        subscribed.sort_by_key(|m| m.instance_id.is_none());
        let n = subscribed.len() as i32;
        let (per, extra) = (count / n, count % n);
        for (i, m) in subscribed.iter().enumerate() {
            let i = i as i32;
            let start = per * i + i.min(extra);
            let len = per + i32::from(i < extra);
            if len > 0 {
                out.entry(m.member_id.clone())
                    .or_default()
                    .insert(topic.clone(), (start..start + len).collect());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(id: &str, topics: &[&str]) -> MemberSubscription {
        MemberSubscription {
            member_id: id.to_owned(),
            instance_id: None,
            topics: topics.iter().map(|t| (*t).to_owned()).collect(),
        }
    }

    #[test]
    fn ranges_follow_member_order_with_the_remainder_first() {
        let topics = BTreeMap::from([("t".to_owned(), 5), ("u".to_owned(), 1)]);
        let got = assign(
            &[
                member("m-2", &["t", "u"]),
                member("m-1", &["t"]),
                member("m-3", &["t"]),
            ],
            &topics,
        );
        assert_eq!(got["m-1"]["t"], [0, 1]);
        assert_eq!(got["m-2"]["t"], [2, 3]);
        assert_eq!(got["m-3"]["t"], [4]);
        assert_eq!(got["m-2"]["u"], [0], "only m-2 reads u");
        assert!(!got["m-1"].contains_key("u"));
    }

    #[test]
    fn more_members_than_partitions_leaves_the_last_ones_without() {
        let topics = BTreeMap::from([("t".to_owned(), 1)]);
        let got = assign(&[member("b", &["t"]), member("a", &["t"])], &topics);
        assert_eq!(got["a"]["t"], [0]);
        assert!(got["b"].is_empty());
    }
}
