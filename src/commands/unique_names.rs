//! Connector names must be unique across the command line's connector files: a name given in
//! two files (or one file given twice) would silently replace the first connector.

use std::path::{Path, PathBuf};

/// One problem per connector name that more than one of `named` (file, name) uses, naming
/// every file that uses it.
pub fn duplicate_names(named: &[(PathBuf, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut reported: Vec<&str> = Vec::new();
    for (i, (_, name)) in named.iter().enumerate() {
        if reported.contains(&name.as_str()) {
            continue;
        }
        let files: Vec<&Path> = named[i..]
            .iter()
            .filter(|(_, n)| n == name)
            .map(|(f, _)| f.as_path())
            .collect();
        if files.len() < 2 {
            continue;
        }
        reported.push(name);
        let message = if files.iter().all(|f| *f == files[0]) {
            format!(
                "Connector '{name}': {} is given {} times on the command line; each \
                 connector file may be given once.",
                files[0].display(),
                files.len()
            )
        } else {
            let list: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
            format!(
                "Connector name '{name}' is used by more than one file: {}. Connector names \
                 must be unique; rename one of them.",
                list.join(" and ")
            )
        };
        problems.push(message);
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(pairs: &[(&str, &str)]) -> Vec<(PathBuf, String)> {
        pairs
            .iter()
            .map(|(f, n)| (PathBuf::from(f), (*n).to_owned()))
            .collect()
    }

    #[test]
    fn two_files_one_name_names_both_files() {
        let p = duplicate_names(&named(&[
            ("a.properties", "x"),
            ("b.json", "x"),
            ("c", "y"),
        ]));
        assert_eq!(p.len(), 1);
        assert!(p[0].contains("a.properties and b.json"), "{}", p[0]);
        let p = duplicate_names(&named(&[("a", "x"), ("a", "x")]));
        assert!(p[0].contains("a is given 2 times"), "{}", p[0]);
        assert!(duplicate_names(&named(&[("a", "x"), ("b", "y")])).is_empty());
    }
}
