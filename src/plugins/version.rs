//! Plugin versions and version ranges as Kafka Connect compares them (KIP-891): Maven's
//! `ComparableVersion` ordering (maven-artifact 3.9, the jar Kafka ships) and
//! `VersionRange.createFromVersionSpec` / `containsVersion`, plus Kafka's
//! `PluginUtils.connectorVersionRequirement` that turns a `*.plugin.version` value into a range.
//!
//! Ordering, as Maven documents it: `.` and `-` separate items, and so does a change between
//! letters and digits (`1.0alpha1` → `1, 0, alpha, 1`); a `-`, a letter/digit change and
//! (since Maven 3.9) any qualifier not first in its list open a sub-list, which ranks below a
//! `.` item (`2.0.a` = `2-a`); numbers compare as numbers; known qualifiers
//! (case-insensitive) rank `alpha` (`a` before a digit) < `beta` (`b`) < `milestone` (`m`) <
//! `rc` = `cr` < `snapshot` < `""` = `ga` = `final` = `release` < `sp`, and unknown qualifiers
//! after them in lexical order; trailing null items (`0`, `""`, `final`, ...) do not count
//! (`1.0.0` = `1` = `1-ga`).

use std::cmp::Ordering;
use std::fmt;

/// Maven's known qualifiers in their order; the empty string is the release.
const QUALIFIERS: [&str; 7] = ["alpha", "beta", "milestone", "rc", "snapshot", "", "sp"];
/// The comparable value of the release qualifier (`""`).
const RELEASE_INDEX: &str = "5";

/// One item of a parsed version.
#[derive(Debug, Clone)]
enum Item {
    /// A number, as its decimal digits without leading zeros (`""` is zero).
    Number(String),
    /// A qualifier, lower case, with its aliases resolved (`ga` → `""`, `cr` → `rc`).
    Text(String),
    /// A sub-list, opened by `-` or by a change between letters and digits.
    List(Vec<Item>),
}

/// Maven's `StringItem.comparableQualifier`: the index of a known qualifier, else
/// `7-<qualifier>`, compared as text.
fn comparable_qualifier(q: &str) -> String {
    match QUALIFIERS.iter().position(|k| *k == q) {
        Some(i) => i.to_string(),
        None => format!("{}-{q}", QUALIFIERS.len()),
    }
}

fn compare_numbers(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

impl Item {
    fn text(value: &str, followed_by_digit: bool) -> Self {
        let value = match (followed_by_digit, value) {
            (true, "a") => "alpha",
            (true, "b") => "beta",
            (true, "m") => "milestone",
            _ => value,
        };
        let value = match value {
            "ga" | "final" | "release" => "",
            "cr" => "rc",
            other => other,
        };
        Self::Text(value.to_owned())
    }

    fn parse(is_digit: bool, buf: &str) -> Self {
        if is_digit {
            Self::Number(buf.trim_start_matches('0').to_owned())
        } else {
            Self::text(buf, false)
        }
    }

    /// Maven's `isNull`: items that do not count at the end of a list.
    fn is_null(&self) -> bool {
        match self {
            Self::Number(n) => n.is_empty(),
            Self::Text(t) => comparable_qualifier(t) == RELEASE_INDEX,
            Self::List(l) => l.is_empty(),
        }
    }

    /// Maven's `Item.compareTo`, `None` standing for a missing item.
    fn compare(&self, other: Option<&Item>) -> Ordering {
        match (self, other) {
            (Self::Number(n), None) => {
                if n.is_empty() {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
            (Self::Number(a), Some(Self::Number(b))) => compare_numbers(a, b),
            (Self::Number(_), Some(_)) => Ordering::Greater,
            (Self::Text(t), None) => comparable_qualifier(t).as_str().cmp(RELEASE_INDEX),
            (Self::Text(a), Some(Self::Text(b))) => {
                comparable_qualifier(a).cmp(&comparable_qualifier(b))
            }
            (Self::Text(_), Some(_)) => Ordering::Less,
            (Self::List(l), None) => l
                .iter()
                .map(|i| i.compare(None))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal),
            (Self::List(_), Some(Self::Number(_))) => Ordering::Less,
            (Self::List(_), Some(Self::Text(_))) => Ordering::Greater,
            (Self::List(a), Some(Self::List(b))) => compare_lists(a, b),
        }
    }
}

fn compare_lists(a: &[Item], b: &[Item]) -> Ordering {
    for i in 0..a.len().max(b.len()) {
        let result = match (a.get(i), b.get(i)) {
            (None, None) => Ordering::Equal,
            (None, Some(r)) => r.compare(None).reverse(),
            (Some(l), r) => l.compare(r),
        };
        if result.is_ne() {
            return result;
        }
    }
    Ordering::Equal
}

/// Maven's `ListItem.normalize`: drop null items from the end, looking through trailing
/// sub-lists.
fn normalize(list: &mut Vec<Item>) {
    let mut i = list.len();
    while i > 0 {
        i -= 1;
        if list[i].is_null() {
            list.remove(i);
        } else if !matches!(list[i], Item::List(_)) {
            break;
        }
    }
}

/// A plugin version with Maven's ordering (`DefaultArtifactVersion` over `ComparableVersion`);
/// shown as given.
#[derive(Debug, Clone)]
pub struct Version {
    text: String,
    items: Vec<Item>,
}

impl Version {
    /// Parses `text` as Maven does; every string is a version.
    pub fn new(text: &str) -> Self {
        let lower = text.to_lowercase();
        // The open lists, outermost first; a new sub-list is pushed and stays open to the end.
        let mut stack: Vec<Vec<Item>> = vec![Vec::new()];
        let mut is_digit = false;
        let mut start = 0;
        let chars: Vec<(usize, char)> = lower.char_indices().collect();
        let push_list = |stack: &mut Vec<Vec<Item>>| stack.push(Vec::new());
        for &(i, c) in &chars {
            let top = stack.len() - 1;
            if c == '.' || c == '-' {
                if i == start {
                    stack[top].push(Item::Number(String::new()));
                } else {
                    stack[top].push(Item::parse(is_digit, &lower[start..i]));
                }
                start = i + c.len_utf8();
                if c == '-' {
                    push_list(&mut stack);
                }
            } else if c.is_ascii_digit() {
                if !is_digit && i > start {
                    // A qualifier opens a sub-list unless it comes first in its list.
                    if !stack[top].is_empty() {
                        push_list(&mut stack);
                    }
                    let top = stack.len() - 1;
                    stack[top].push(Item::text(&lower[start..i], true));
                    start = i;
                    push_list(&mut stack);
                }
                is_digit = true;
            } else {
                if is_digit && i > start {
                    stack[top].push(Item::parse(true, &lower[start..i]));
                    start = i;
                    push_list(&mut stack);
                }
                is_digit = false;
            }
        }
        if lower.len() > start {
            if !is_digit && stack.last().is_some_and(|l| !l.is_empty()) {
                push_list(&mut stack);
            }
            let top = stack.len() - 1;
            stack[top].push(Item::parse(is_digit, &lower[start..]));
        }
        // Close the lists innermost first, each normalized, into its parent.
        let mut items = stack.pop().unwrap_or_default();
        normalize(&mut items);
        while let Some(mut parent) = stack.pop() {
            parent.push(Item::List(items));
            normalize(&mut parent);
            items = parent;
        }
        Self {
            text: text.to_owned(),
            items,
        }
    }

    /// The version as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_lists(&self.items, &other.items)
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Version {}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A version specification Maven refuses; the message is Maven's
/// `InvalidVersionSpecificationException` text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidVersionSpec(pub String);

/// One interval of a [`VersionRange`] (Maven's `Restriction`); a missing bound is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restriction {
    lower: Option<Version>,
    lower_inclusive: bool,
    upper: Option<Version>,
    upper_inclusive: bool,
}

impl Restriction {
    const EVERYTHING: Self = Self {
        lower: None,
        lower_inclusive: false,
        upper: None,
        upper_inclusive: false,
    };

    /// Whether `v` is inside.
    pub fn contains(&self, v: &Version) -> bool {
        if let Some(lower) = &self.lower {
            match lower.cmp(v) {
                Ordering::Greater => return false,
                Ordering::Equal if !self.lower_inclusive => return false,
                _ => {}
            }
        }
        if let Some(upper) = &self.upper {
            match upper.cmp(v) {
                Ordering::Less => return false,
                Ordering::Equal if !self.upper_inclusive => return false,
                _ => {}
            }
        }
        true
    }

    fn parse(spec: &str) -> Result<Self, InvalidVersionSpec> {
        let lower_inclusive = spec.starts_with('[');
        let upper_inclusive = spec.ends_with(']');
        let inner = spec[1..spec.len() - 1].trim();
        match inner.find(',') {
            None => {
                if !lower_inclusive || !upper_inclusive {
                    return Err(InvalidVersionSpec(format!(
                        "Single version must be surrounded by []: {spec}"
                    )));
                }
                let v = Version::new(inner);
                Ok(Self {
                    lower: Some(v.clone()),
                    lower_inclusive,
                    upper: Some(v),
                    upper_inclusive,
                })
            }
            Some(i) => {
                let bound = |s: &str| (!s.is_empty()).then(|| Version::new(s));
                let lower = bound(inner[..i].trim());
                let upper = bound(inner[i + 1..].trim());
                if let (Some(l), Some(u)) = (&lower, &upper) {
                    let order = u.cmp(l);
                    if order.is_lt() || (order.is_eq() && (!lower_inclusive || !upper_inclusive)) {
                        return Err(InvalidVersionSpec(format!(
                            "Range defies version ordering: {spec}"
                        )));
                    }
                }
                Ok(Self {
                    lower,
                    lower_inclusive,
                    upper,
                    upper_inclusive,
                })
            }
        }
    }
}

impl fmt::Display for Restriction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bound = |v: &Option<Version>| v.as_ref().map_or("", Version::as_str).to_owned();
        write!(
            f,
            "{}{},{}{}",
            if self.lower_inclusive { '[' } else { '(' },
            bound(&self.lower),
            bound(&self.upper),
            if self.upper_inclusive { ']' } else { ')' }
        )
    }
}

/// Maven's `VersionRange`: a recommended ("soft") version, or intervals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionRange {
    recommended: Option<Version>,
    restrictions: Vec<Restriction>,
}

impl VersionRange {
    /// Maven's `VersionRange.createFromVersionSpec`: `1.0` (a soft version: everything, 1.0
    /// recommended), `[1.0]`, `[1.0,2.0)`, `[1.5,)`, `(,1.0],[1.2,)`.
    ///
    /// # Errors
    /// [`InvalidVersionSpec`] with Maven's message (`Unbounded range: `, `Ranges overlap: `,
    /// `Single version must be surrounded by []: `, `Range defies version ordering: `,
    /// `Only fully-qualified sets allowed in multiple set scenario: `).
    pub fn parse(spec: &str) -> Result<Self, InvalidVersionSpec> {
        let mut restrictions: Vec<Restriction> = Vec::new();
        let mut process = spec;
        let mut upper_bound: Option<Version> = None;
        while process.starts_with('[') || process.starts_with('(') {
            let close = match (process.find(')'), process.find(']')) {
                (Some(p), Some(b)) => p.min(b),
                (p, b) => match p.or(b) {
                    Some(i) => i,
                    None => {
                        return Err(InvalidVersionSpec(format!("Unbounded range: {spec}")));
                    }
                },
            };
            let restriction = Restriction::parse(&process[..=close])?;
            if let Some(upper) = &upper_bound {
                if restriction.lower.as_ref().is_none_or(|l| l < upper) {
                    return Err(InvalidVersionSpec(format!("Ranges overlap: {spec}")));
                }
            }
            upper_bound = restriction.upper.clone();
            restrictions.push(restriction);
            process = process[close + 1..].trim();
            if let Some(rest) = process.strip_prefix(',') {
                process = rest.trim();
            }
        }
        let mut recommended = None;
        if !process.is_empty() {
            if !restrictions.is_empty() {
                return Err(InvalidVersionSpec(format!(
                    "Only fully-qualified sets allowed in multiple set scenario: {spec}"
                )));
            }
            recommended = Some(Version::new(process));
            restrictions.push(Restriction::EVERYTHING);
        }
        Ok(Self {
            recommended,
            restrictions,
        })
    }

    /// Maven's `containsVersion`: whether any interval holds `v` (a soft version holds all).
    pub fn contains(&self, v: &Version) -> bool {
        self.restrictions.iter().any(|r| r.contains(v))
    }

    /// Maven's `hasRestrictions`: intervals, not a soft version.
    pub fn has_restrictions(&self) -> bool {
        !self.restrictions.is_empty() && self.recommended.is_none()
    }
}

impl fmt::Display for VersionRange {
    /// Maven's `toString`: the soft version as given, else the intervals joined by `,`
    /// (`[1.2.3]` shows as `[1.2.3,1.2.3]`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(v) = &self.recommended {
            return f.write_str(v.as_str());
        }
        for (i, r) in self.restrictions.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

/// Kafka's `PluginUtils.connectorVersionRequirement`: no value or `latest` → no requirement
/// (the latest version); a soft version `1.2.3` → the hard range `[1.2.3]`; a range as given.
/// The value is trimmed first (after the `latest` check, as Kafka).
///
/// # Errors
/// [`InvalidVersionSpec`] with Maven's message.
pub fn version_requirement(
    value: Option<&str>,
) -> Result<Option<VersionRange>, InvalidVersionSpec> {
    let Some(value) = value.filter(|v| *v != "latest") else {
        return Ok(None);
    };
    let value = value.trim();
    let range = VersionRange::parse(value)?;
    if range.has_restrictions() {
        return Ok(Some(range));
    }
    VersionRange::parse(&format!("[{value}]")).map(Some)
}

#[cfg(test)]
mod tests;
