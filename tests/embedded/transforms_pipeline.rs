//! The transformation stage in both task loops, driven through the real binary on the
//! embedded log: predicates decide where a transform applies, a record dropped by a source
//! transform still advances its source offset, and a bad `transforms`/`predicates`
//! configuration is refused before any task runs, naming file, line and key.

use crate::support;

use support::*;

/// The committed source offset (`position`) of connector `name` in the worker's offsets file
/// (`{"connectors":{"<name>":[{"partition":{..},"offset":{..}}]}}`).
fn committed_position(w: &Workdir, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(w.path("data/connect.offsets.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["connectors"][name][0]["offset"]["position"].as_u64()
}

#[test]
fn a_source_filter_drops_every_record_and_the_offset_still_advances() {
    let w = Workdir::new();
    let input = w.write("in.txt", "a\nb\nc\n");
    let output = w.path("out.txt");
    let worker = w.worker("");
    let source = w.write(
        "src.properties",
        format!(
            "name=src\nconnector.class=FileStreamSource\nfile={}\ntopic=lines\n\
             transforms=dropAll\ntransforms.dropAll.type=Filter\n\
             transforms.dropAll.predicate=isLines\n\
             predicates=isLines\npredicates.isLines.type=TopicNameMatches\n\
             predicates.isLines.pattern=li.*\n",
            input.display()
        ),
    );
    let sink = w.sink("dst", &output, "lines");
    let (code, err) = w.run_checked(&[&worker, &source, &sink]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&output).unwrap_or_default(), b"");
    assert_eq!(committed_position(&w, "src"), Some(6), "{err}");
}

#[test]
fn a_negated_predicate_keeps_the_matching_records_in_the_sink() {
    let w = Workdir::new();
    let keep = w.write("keep.txt", "k1\nk2\n");
    let drop = w.write("drop.txt", "d1\nd2\nd3\n");
    let output = w.path("out.txt");
    let worker = w.worker("");
    let a = w.source("a", &keep, "keep");
    let b = w.source("b", &drop, "drop");
    let sink = w.write(
        "sink.properties",
        format!(
            "name=dst\nconnector.class=FileStreamSink\nfile={}\ntopics=keep,drop\n\
             transforms=onlyKeep\ntransforms.onlyKeep.type=org.apache.kafka.connect.transforms.Filter\n\
             transforms.onlyKeep.predicate=isKeep\ntransforms.onlyKeep.negate=true\n\
             predicates=isKeep\n\
             predicates.isKeep.type=org.apache.kafka.connect.transforms.predicates.TopicNameMatches\n\
             predicates.isKeep.pattern=keep\n",
            output.display()
        ),
    );
    let (code, err) = w.run_checked(&[&worker, &a, &b, &sink]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "k1\nk2\n");
}

#[test]
fn bad_transform_configurations_are_refused_with_file_line_and_key() {
    let w = Workdir::new();
    let input = w.write("in.txt", "a\n");
    let worker = w.worker("");
    let source = w.write(
        "src.properties",
        format!(
            "name=src\nconnector.class=FileStreamSource\nfile={}\ntopic=t\n\
             transforms=f,g,h\n\
             transforms.f.type=Filtr\n\
             transforms.g.type=Filter\n\
             transforms.g.negate=true\n\
             transforms.h.type=Filter\n\
             transforms.h.predicate=re\n\
             predicates=re,hh\n\
             predicates.re.type=TopicNameMatches\n\
             predicates.re.pattern=(unclosed\n\
             predicates.hh.type=HasHeaderKey\n",
            input.display()
        ),
    );
    let (code, err) = w.run_checked(&[&worker, &source]);
    assert_eq!(code, 3, "{err}");
    for expected in [
        "line 6: transforms.f.type: Invalid value Filtr for configuration transforms.f.type: \
         Class Filtr could not be found.",
        "Did you mean 'Filter'?",
        "line 8: transforms.g.negate: Config 'transforms.g.negate' was provided but there is no \
         config 'transforms.g.predicate' defining a predicate to be negated.",
        "line 13: predicates.re.pattern: Invalid value (unclosed for configuration \
         predicates.re.pattern: Invalid regex",
        "predicates.hh.name: Missing required configuration \"predicates.hh.name\" which has no \
         default value.",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in:\n{err}");
    }
    assert!(!w.path("data").join("t-0").exists(), "no task may run");
}
