//! "Did you mean ...?": the known name closest to a misspelled one, by edit distance
//! (optimal string alignment, case-insensitive, so a swapped pair of letters counts once).

/// The candidate closest to `input`, if it is close enough to be a likely misspelling: at most
/// one edit for names up to 4 characters, else at most a third of the name's length. An exact
/// match is no suggestion. Ties go to the first candidate.
pub fn closest<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wanted = input.trim().to_lowercase();
    if wanted.is_empty() {
        return None;
    }
    let limit = (wanted.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let distance = strsim::osa_distance(&wanted, &candidate.to_lowercase());
        if distance == 0 && candidate == input.trim() {
            return None;
        }
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// ` Did you mean 'x'?` for the closest candidate, or an empty string.
pub fn did_you_mean<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(input, candidates)
        .map(|c| format!(" Did you mean '{c}'?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_are_suggested_far_ones_are_not() {
        let classes = ["FileStreamSource", "FileStreamSink", "JsonConverter"];
        assert_eq!(
            closest("FileStreamSorce", classes),
            Some("FileStreamSource")
        );
        assert_eq!(closest("filestreamsink", classes), Some("FileStreamSink"));
        assert_eq!(closest("Postgres", classes), None);
        assert_eq!(closest("FileStreamSource", classes), None);
        let keys = ["topics", "topics.regex", "value.converter", "file"];
        assert_eq!(closest("topic", keys), Some("topics"));
        assert_eq!(closest("value.convertor", keys), Some("value.converter"));
        assert_eq!(closest("fiel", keys), Some("file"));
        assert_eq!(closest("", keys), None);
        assert_eq!(
            did_you_mean("topic", keys),
            " Did you mean 'topics'?".to_owned()
        );
        assert_eq!(did_you_mean("zzzzzz", keys), String::new());
    }
}
