//! The text of a fatal error: the context chain joined with `: `, each cause printed once.
//! Error types that show their source in their own message (`"...: {source}"`) would
//! otherwise print the OS error twice through anyhow's `{:#}`.

/// `outer: inner: cause`, skipping a cause whose text the line already contains.
pub fn error_text(error: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("Cannot read configuration file w.properties: {source}")]
    struct Echoing {
        #[source]
        source: std::io::Error,
    }

    #[test]
    fn each_cause_is_printed_once() {
        let io = std::io::Error::from_raw_os_error(2);
        let e = anyhow::Error::new(Echoing { source: io }).context("Start-up failed");
        let text = error_text(&e);
        assert_eq!(text.matches("os error 2").count(), 1, "{text}");
        assert!(
            text.starts_with("Start-up failed: Cannot read configuration file"),
            "{text}"
        );
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(error_text(&plain), "outer: inner");
    }
}
