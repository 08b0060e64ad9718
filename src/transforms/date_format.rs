//! Java's `java.text.SimpleDateFormat` as Kafka's TimestampConverter and TimestampRouter use it:
//! UTC, English symbols, the JDK's hybrid Julian/Gregorian calendar, lenient parsing.
//!
//! Supported pattern letters: `G y M L d D E u F a H k K h m s S z Z X` and quoted text. The
//! week-based letters `w W Y` are valid Java but not implemented: [`PatternError::Unsupported`].
//! Parsing reads numeric zones, `GMT±hh:mm`, `UTC`/`UT`/`GMT` and `Z`, but no other zone names.

use std::time::{SystemTime, UNIX_EPOCH};

use connect_api::java_fmt::{civil_from_days, days_from_civil, MILLIS_PER_DAY};

/// Every pattern letter Java knows (`DateFormatSymbols.patternChars`).
const JAVA_LETTERS: &str = "GyMdkHmsSEDFwWahKzZYuXL";
/// The letters implemented here.
pub const SUPPORTED_LETTERS: &str = "GyMLdDEuFaHkKhmsSzZX";

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Why a pattern cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternError {
    /// Java rejects it too; the text is the JDK's `IllegalArgumentException` message.
    Invalid(String),
    /// A valid Java pattern letter that connect-rs does not implement.
    Unsupported(char),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Literal(String),
    Field(char, usize),
}

/// A compiled `SimpleDateFormat` pattern (UTC).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleDateFormat {
    pattern: String,
    items: Vec<Item>,
}

fn push_field(
    items: &mut Vec<Item>,
    field: &mut Option<(char, usize)>,
) -> Result<(), PatternError> {
    if let Some((c, n)) = field.take() {
        if c == 'X' && n > 3 {
            return Err(PatternError::Invalid(format!(
                "invalid ISO 8601 format: length={n}"
            )));
        }
        items.push(Item::Field(c, n));
    }
    Ok(())
}

fn push_literal(items: &mut Vec<Item>, c: char) {
    if let Some(Item::Literal(s)) = items.last_mut() {
        s.push(c);
    } else {
        items.push(Item::Literal(c.to_string()));
    }
}

fn pad(out: &mut String, value: i64, width: usize) {
    let s = value.to_string();
    for _ in s.len()..width {
        out.push('0');
    }
    out.push_str(&s);
}

fn numeric(letter: char, count: usize) -> bool {
    match letter {
        'M' | 'L' => count <= 2,
        'y' | 'd' | 'k' | 'H' | 'm' | 's' | 'S' | 'D' | 'F' | 'w' | 'W' | 'h' | 'K' | 'Y' | 'u' => {
            true
        }
        _ => false,
    }
}

/// The longest of `names` that `text[pos..]` starts with, ignoring case: (index, length).
fn match_name(text: &[char], pos: usize, names: &[&str]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for (i, name) in names.iter().enumerate() {
        let n: Vec<char> = name.chars().collect();
        if pos + n.len() <= text.len()
            && text[pos..pos + n.len()]
                .iter()
                .zip(&n)
                .all(|(a, b)| a.to_lowercase().eq(b.to_lowercase()))
            && best.is_none_or(|(_, l)| n.len() > l)
        {
            best = Some((i, n.len()));
        }
    }
    best
}

/// Fields set while parsing, with the order they were set in (Java's calendar stamps).
#[derive(Default)]
struct Parsed {
    stamp: u32,
    bc: bool,
    year: Option<i64>,
    ambiguous_year: bool,
    month: Option<(i64, u32)>,
    day: Option<(i64, u32)>,
    day_of_year: Option<(i64, u32)>,
    hour_of_day: Option<(i64, u32)>,
    hour: Option<(i64, u32)>,
    am_pm: Option<(i64, u32)>,
    minute: i64,
    second: i64,
    milli: i64,
    offset_ms: i64,
}

impl Parsed {
    fn next(&mut self) -> u32 {
        self.stamp += 1;
        self.stamp
    }

    fn millis(&self, year_shift: i64) -> Option<i64> {
        let year = self.year.unwrap_or(1970);
        let astro = if self.bc { 1 - year } else { year } + year_shift;
        let stamp = |f: Option<(i64, u32)>| f.map_or(0, |(_, s)| s);
        let days = match self.day_of_year {
            Some((doy, s)) if s > stamp(self.month).max(stamp(self.day)) => {
                days_from_civil(astro, 1, 1).checked_add(doy - 1)?
            }
            _ => days_from_civil(
                astro,
                self.month.map_or(0, |(m, _)| m).checked_add(1)?,
                self.day.map_or(1, |(d, _)| d),
            ),
        };
        let twelve = match (self.hour, self.am_pm) {
            (Some((h, hs)), Some((a, as_))) => Some((h + 12 * a, hs.max(as_))),
            _ => None,
        };
        let hour = match (self.hour_of_day, twelve) {
            (Some((h, s)), Some((_, ts))) if s > ts => h,
            (_, Some((h, _))) => h,
            (Some((h, _)), None) => h,
            (None, None) => self.hour.map_or(0, |(h, _)| h) + 12 * self.am_pm.map_or(0, |(a, _)| a),
        };
        days.checked_mul(MILLIS_PER_DAY)?
            .checked_add(hour.checked_mul(3_600_000)?)?
            .checked_add(self.minute.checked_mul(60_000)?)?
            .checked_add(self.second.checked_mul(1000)?)?
            .checked_add(self.milli)?
            .checked_sub(self.offset_ms)
    }
}

/// Java's default century for two-digit years: 80 years before now. Returns (start millis, start year).
fn default_century_start() -> (i64, i64) {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let days = now.div_euclid(MILLIS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    let start = days_from_civil(y - 80, m, d) * MILLIS_PER_DAY + now.rem_euclid(MILLIS_PER_DAY);
    (start, y - 80)
}

impl SimpleDateFormat {
    /// Compiles `pattern` as `new SimpleDateFormat(pattern)` does.
    ///
    /// # Errors
    /// [`PatternError::Invalid`] with Java's message, or [`PatternError::Unsupported`].
    pub fn new(pattern: &str) -> Result<Self, PatternError> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut items = Vec::new();
        let mut field: Option<(char, usize)> = None;
        let mut in_quote = false;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            i += 1;
            if c == '\'' {
                if chars.get(i) == Some(&'\'') {
                    i += 1;
                    push_field(&mut items, &mut field)?;
                    push_literal(&mut items, '\'');
                    continue;
                }
                push_field(&mut items, &mut field)?;
                in_quote = !in_quote;
                continue;
            }
            if in_quote || !c.is_ascii_alphabetic() {
                push_field(&mut items, &mut field)?;
                push_literal(&mut items, c);
                continue;
            }
            if !JAVA_LETTERS.contains(c) {
                return Err(PatternError::Invalid(format!(
                    "Illegal pattern character '{c}'"
                )));
            }
            if !SUPPORTED_LETTERS.contains(c) {
                return Err(PatternError::Unsupported(c));
            }
            match &mut field {
                Some((l, n)) if *l == c => *n += 1,
                _ => {
                    push_field(&mut items, &mut field)?;
                    field = Some((c, 1));
                }
            }
        }
        if in_quote {
            return Err(PatternError::Invalid("Unterminated quote".to_owned()));
        }
        push_field(&mut items, &mut field)?;
        Ok(Self {
            pattern: pattern.to_owned(),
            items,
        })
    }

    /// The pattern as given (`toPattern()`).
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Formats epoch milliseconds.
    pub fn format(&self, millis: i64) -> String {
        let days = millis.div_euclid(MILLIS_PER_DAY);
        let ms = millis.rem_euclid(MILLIS_PER_DAY);
        let (y, m, d) = civil_from_days(days);
        let year_of_era = if y <= 0 { 1 - y } else { y };
        let weekday = (days + 4).rem_euclid(7) as usize; // 0 = Sunday
        let hour = ms / 3_600_000;
        let mut out = String::new();
        for item in &self.items {
            let (c, n) = match item {
                Item::Literal(s) => {
                    out.push_str(s);
                    continue;
                }
                Item::Field(c, n) => (*c, *n),
            };
            match c {
                'G' => out.push_str(if y <= 0 { "BC" } else { "AD" }),
                'y' if n == 2 => pad(&mut out, year_of_era % 100, 2),
                'y' => pad(&mut out, year_of_era, n),
                'M' | 'L' if n >= 4 => out.push_str(MONTHS[(m - 1) as usize]),
                'M' | 'L' if n == 3 => out.push_str(&MONTHS[(m - 1) as usize][..3]),
                'M' | 'L' => pad(&mut out, m, n),
                'd' => pad(&mut out, d, n),
                'D' => pad(&mut out, days - days_from_civil(y, 1, 1) + 1, n),
                'E' if n >= 4 => out.push_str(WEEKDAYS[weekday]),
                'E' => out.push_str(&WEEKDAYS[weekday][..3]),
                'u' => pad(&mut out, if weekday == 0 { 7 } else { weekday as i64 }, n),
                'F' => pad(&mut out, (d - 1) / 7 + 1, n),
                'a' => out.push_str(if hour < 12 { "AM" } else { "PM" }),
                'H' => pad(&mut out, hour, n),
                'k' => pad(&mut out, if hour == 0 { 24 } else { hour }, n),
                'K' => pad(&mut out, hour % 12, n),
                'h' => pad(&mut out, if hour % 12 == 0 { 12 } else { hour % 12 }, n),
                'm' => pad(&mut out, ms / 60_000 % 60, n),
                's' => pad(&mut out, ms / 1000 % 60, n),
                'S' => pad(&mut out, ms % 1000, n),
                'z' if n >= 4 => out.push_str("Coordinated Universal Time"),
                'z' => out.push_str("UTC"),
                'Z' => out.push_str("+0000"),
                'X' => out.push('Z'),
                _ => {}
            }
        }
        out
    }

    /// Parses a prefix of `text` as the lenient `DateFormat.parse(String)` does; `None` where
    /// Java throws `ParseException`.
    pub fn parse(&self, text: &str) -> Option<i64> {
        let text: Vec<char> = text.chars().collect();
        let mut p = Parsed::default();
        let mut pos = 0;
        for (i, item) in self.items.iter().enumerate() {
            let (c, n) = match item {
                Item::Literal(s) => {
                    for ch in s.chars() {
                        if text.get(pos) != Some(&ch) {
                            return None;
                        }
                        pos += 1;
                    }
                    continue;
                }
                Item::Field(c, n) => (*c, *n),
            };
            while matches!(text.get(pos), Some(' ' | '\t')) {
                pos += 1;
            }
            if pos >= text.len() {
                return None;
            }
            if numeric(c, n) {
                let obey =
                    matches!(self.items.get(i + 1), Some(Item::Field(c2, n2)) if numeric(*c2, *n2));
                let end = if obey {
                    if pos + n > text.len() {
                        return None;
                    }
                    pos + n
                } else {
                    text.len()
                };
                let start = pos;
                let negative = text[pos] == '-';
                let mut q = pos + usize::from(negative);
                let digits_start = q;
                let mut value: i64 = 0;
                while q < end && text[q].is_ascii_digit() {
                    value = value
                        .saturating_mul(10)
                        .saturating_add(i64::from(text[q] as u8 - b'0'));
                    q += 1;
                }
                if q == digits_start {
                    return None;
                }
                pos = q;
                let value = i64::from(if negative { -value } else { value } as i32);
                let s = p.next();
                match c {
                    'y' => {
                        let mut year = value;
                        if n <= 2 && pos - start == 2 && !negative {
                            let (_, start_year) = default_century_start();
                            let two = start_year % 100;
                            p.ambiguous_year = value == two;
                            year += start_year / 100 * 100 + if value < two { 100 } else { 0 };
                        }
                        p.year = Some(year);
                    }
                    'M' | 'L' => p.month = Some((value - 1, s)),
                    'd' => p.day = Some((value, s)),
                    'D' => p.day_of_year = Some((value, s)),
                    'H' => p.hour_of_day = Some((value, s)),
                    'k' => p.hour_of_day = Some((if value == 24 { 0 } else { value }, s)),
                    'K' => p.hour = Some((value, s)),
                    'h' => p.hour = Some((if value == 12 { 0 } else { value }, s)),
                    'm' => p.minute = value,
                    's' => p.second = value,
                    'S' => p.milli = value,
                    _ => {} // u, F: read but not used to resolve the date
                }
                continue;
            }
            let s = p.next();
            match c {
                'G' => {
                    let (era, len) = match_name(&text, pos, &["BC", "AD"])?;
                    p.bc = era == 0;
                    pos += len;
                }
                'M' | 'L' => {
                    let short: Vec<&str> = MONTHS.iter().map(|m| &m[..3]).collect();
                    let (month, len) = match_name(&text, pos, &MONTHS)
                        .or_else(|| match_name(&text, pos, &short))?;
                    p.month = Some((month as i64, s));
                    pos += len;
                }
                'E' => {
                    let short: Vec<&str> = WEEKDAYS.iter().map(|d| &d[..3]).collect();
                    let (_, len) = match_name(&text, pos, &WEEKDAYS)
                        .or_else(|| match_name(&text, pos, &short))?;
                    pos += len;
                }
                'a' => {
                    let (ampm, len) = match_name(&text, pos, &["AM", "PM"])?;
                    p.am_pm = Some((ampm as i64, s));
                    pos += len;
                }
                _ => {
                    let (offset, len) = parse_zone(&text, pos, c)?;
                    p.offset_ms = offset;
                    pos += len;
                }
            }
        }
        let millis = p.millis(0)?;
        if p.ambiguous_year && millis < default_century_start().0 {
            return p.millis(100);
        }
        Some(millis)
    }
}

/// `±h[h][[:]mm]` at `pos`: (offset ms, length).
fn numeric_zone(text: &[char], pos: usize) -> Option<(i64, usize)> {
    let sign = match text.get(pos)? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let digit = |i: usize| text.get(i).and_then(|c| c.to_digit(10)).map(i64::from);
    let mut q = pos + 1;
    let mut hours = digit(q)?;
    q += 1;
    if let Some(d) = digit(q) {
        hours = hours * 10 + d;
        q += 1;
    }
    let mut minutes = 0;
    let colon = usize::from(text.get(q) == Some(&':'));
    if let (Some(a), Some(b)) = (digit(q + colon), digit(q + colon + 1)) {
        minutes = a * 10 + b;
        q += colon + 2;
    }
    if hours > 23 || minutes > 59 {
        return None;
    }
    Some((sign * (hours * 3_600_000 + minutes * 60_000), q - pos))
}

fn parse_zone(text: &[char], pos: usize, letter: char) -> Option<(i64, usize)> {
    if letter == 'X' {
        if text.get(pos) == Some(&'Z') {
            return Some((0, 1));
        }
        return numeric_zone(text, pos);
    }
    if let Some(r) = numeric_zone(text, pos) {
        return Some(r);
    }
    if let Some((_, len)) = match_name(text, pos, &["GMT"]) {
        return Some(match numeric_zone(text, pos + len) {
            Some((offset, more)) => (offset, len + more),
            None => (0, len),
        });
    }
    let (_, len) = match_name(text, pos, &["Coordinated Universal Time", "UTC", "UT"])?;
    Some((0, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_java_in_utc() {
        // 2019-08-23T04:05:06.007Z, a Friday, day 235.
        let t = 1_566_533_106_007;
        let cases = [
            ("yyyyMMdd", "20190823"),
            ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2019-08-23T04:05:06.007Z"),
            ("yy/M/d H:m:s.S", "19/8/23 4:5:6.7"),
            ("EEE, d MMM yyyy hh:mm a z", "Fri, 23 Aug 2019 04:05 AM UTC"),
            ("EEEE MMMM", "Friday August"),
            ("D u F k K h Z G", "235 5 4 4 4 4 +0000 AD"),
            ("'o''clock' ''", "o'clock '"),
            ("SSSS yyyyy", "0007 02019"),
        ];
        for (pattern, expected) in cases {
            let f = SimpleDateFormat::new(pattern).unwrap();
            assert_eq!(f.format(t), expected, "{pattern}");
        }
        let f = SimpleDateFormat::new("yyyy-MM-dd HH:mm G").unwrap();
        assert_eq!(f.format(-1), "1969-12-31 23:59 AD");
        // Julian calendar before the 1582 cutover, as java.util.GregorianCalendar.
        assert_eq!(f.format(-12_219_292_800_001), "1582-10-04 23:59 AD");
        assert_eq!(
            f.format(-62_135_769_600_000 - 86_400_000),
            "0001-12-31 00:00 BC"
        );
    }

    #[test]
    fn parses_leniently_like_java() {
        let cases = [
            ("yyyyMMdd", "20190823", Some(1_566_518_400_000)),
            (
                "yyyy-MM-dd HH:mm:ss.SSS",
                "2019-08-23 04:05:06.007",
                Some(1_566_533_106_007),
            ),
            ("yyyy-MM-dd", "2019-08-23T99", Some(1_566_518_400_000)),
            ("yyyy-MM-dd", "2019-13-01", Some(1_577_836_800_000)),
            (
                "yyyy-MM-dd HH:mm Z",
                "2019-08-23 04:05 +0100",
                Some(1_566_529_500_000),
            ),
            (
                "yyyy-MM-dd HH:mm XXX",
                "2019-08-23 04:05 Z",
                Some(1_566_533_100_000),
            ),
            (
                "d MMM yyyy hh:mm a",
                "23 aug 2019 12:05 PM",
                Some(1_566_561_900_000),
            ),
            (
                "EEE, d MMMM yyyy",
                "Fri, 23 August 2019",
                Some(1_566_518_400_000),
            ),
            ("HH:mm", " 01:02", Some(3_720_000)),
            ("yy-MM-dd", "19-08-23", Some(1_566_518_400_000)),
            ("yy-MM-dd", "99-08-23", Some(935_366_400_000)),
            (
                "yyyy-MM-dd HH:mm z",
                "2019-08-23 04:05 GMT+02:00",
                Some(1_566_525_900_000),
            ),
            (
                "yyyy-MM-dd HH:mm z",
                "2019-08-23 04:05 UTC",
                Some(1_566_533_100_000),
            ),
            ("yyyy-MM-dd", "-5-01-01", Some(-62_325_158_400_000)),
            ("MM/dd/yyyy", "8/3/19", Some(-61_549_286_400_000)),
            ("yyyy-MM-dd", "2019/08/23", None),
            ("yyyyMMdd", "2019082", Some(1_564_704_000_000)),
            ("yyyyMMdd", "201908", None),
            ("yyyy-MM-dd", "", None),
        ];
        for (pattern, text, expected) in cases {
            let f = SimpleDateFormat::new(pattern).unwrap();
            assert_eq!(f.parse(text), expected, "{pattern} {text}");
        }
    }

    #[test]
    fn rejects_patterns_like_java_and_names_unsupported_letters() {
        let cases = [
            (
                "yyyy-qq",
                PatternError::Invalid("Illegal pattern character 'q'".into()),
            ),
            ("'abc", PatternError::Invalid("Unterminated quote".into())),
            (
                "XXXX",
                PatternError::Invalid("invalid ISO 8601 format: length=4".into()),
            ),
            ("YYYY-ww", PatternError::Unsupported('Y')),
        ];
        for (pattern, expected) in cases {
            assert_eq!(
                SimpleDateFormat::new(pattern).unwrap_err(),
                expected,
                "{pattern}"
            );
        }
    }
}
