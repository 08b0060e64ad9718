//! TransformationChain: a task's transforms in configuration order, each applied only where its
//! predicate (if any) says so (`negate` XOR `test`), as Kafka Connect's `TransformationStage`.

use std::sync::Arc;

use connect_api::{ConnectError, ConnectRecord, Predicate, RecordContext, Transformation};

/// One configured transform with its condition.
pub struct TransformStage {
    /// The alias in `transforms`.
    pub alias: String,
    /// The Java class name of the transform (for error reports).
    pub class_name: &'static str,
    /// The transform.
    pub transform: Box<dyn Transformation>,
    /// The predicate named by `transforms.<alias>.predicate`, with its alias.
    pub predicate: Option<(String, Arc<dyn Predicate>)>,
    /// `transforms.<alias>.negate`.
    pub negate: bool,
}

impl TransformStage {
    /// Whether the transform applies to `record`: no predicate, or `negate` XOR its test.
    ///
    /// # Errors
    /// The predicate's error (a Java predicate that threw).
    fn applies(&self, record: &ConnectRecord, ctx: &RecordContext) -> Result<bool, ConnectError> {
        match &self.predicate {
            None => Ok(true),
            Some((_, p)) => Ok(self.negate ^ p.try_test(record, ctx)?),
        }
    }

    /// Applies the stage: the transform when the predicate allows it, else the record as is.
    ///
    /// # Errors
    /// The transform's error.
    pub fn apply(
        &mut self,
        record: ConnectRecord,
        ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>, ConnectError> {
        if self.applies(&record, ctx)? {
            self.transform.apply(record, ctx)
        } else {
            Ok(Some(record))
        }
    }

    /// [`TransformStage::apply`] on the record where it lies; `Ok(false)`: dropped.
    ///
    /// # Errors
    /// The transform's error.
    pub fn apply_in_place(
        &mut self,
        record: &mut ConnectRecord,
        ctx: &RecordContext,
    ) -> Result<bool, ConnectError> {
        if self.applies(record, ctx)? {
            self.transform.apply_in_place(record, ctx)
        } else {
            Ok(true)
        }
    }
}

/// A transform failed on a record.
#[derive(Debug, thiserror::Error)]
#[error("transform '{alias}' ({class_name}) failed: {source}")]
pub struct TransformError {
    /// The alias of the failing stage.
    pub alias: String,
    /// Its Java class name.
    pub class_name: &'static str,
    /// The transform's error.
    #[source]
    pub source: ConnectError,
}

/// The transforms of one task, in order.
#[derive(Default)]
pub struct TransformationChain {
    stages: Vec<TransformStage>,
}

impl TransformationChain {
    /// A chain of these stages.
    pub fn new(stages: Vec<TransformStage>) -> Self {
        Self { stages }
    }

    /// Whether the chain has no transforms (records pass unchanged).
    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    /// The stages, for callers that run each one under their own error handling.
    pub fn stages_mut(&mut self) -> &mut [TransformStage] {
        &mut self.stages
    }

    /// Runs the record through every stage, editing it in place; `Ok(false)` when a stage
    /// dropped it (the record is then left as that stage had it). The only loop over the
    /// stages: [`Self::apply`] and the task pipeline's no-retry step use it.
    ///
    /// # Errors
    /// The first stage that failed, with its alias and class.
    pub fn apply_in_place(
        &mut self,
        record: &mut ConnectRecord,
        ctx: &RecordContext,
    ) -> Result<bool, TransformError> {
        for stage in &mut self.stages {
            match stage.apply_in_place(record, ctx) {
                Ok(true) => {}
                Ok(false) => return Ok(false),
                Err(source) => {
                    return Err(TransformError {
                        alias: stage.alias.clone(),
                        class_name: stage.class_name,
                        source,
                    })
                }
            }
        }
        Ok(true)
    }

    /// Runs the record through every stage; `Ok(None)` when a stage dropped it.
    ///
    /// # Errors
    /// The first stage that failed, with its alias and class.
    pub fn apply(
        &mut self,
        mut record: ConnectRecord,
        ctx: &RecordContext,
    ) -> Result<Option<ConnectRecord>, TransformError> {
        Ok(self.apply_in_place(&mut record, ctx)?.then_some(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use connect_api::{ConfigMap, Result};

    /// Appends its tag to the topic.
    struct Tag(&'static str);
    impl Transformation for Tag {
        fn configure(&mut self, _: &ConfigMap) -> Result<()> {
            Ok(())
        }
        fn apply(
            &mut self,
            mut r: ConnectRecord,
            _: &RecordContext,
        ) -> Result<Option<ConnectRecord>> {
            if r.topic == "fail" {
                return Err(ConnectError::data("boom"));
            }
            r.topic.push_str(self.0);
            Ok(Some(r))
        }
    }

    /// Matches topics starting with `a`.
    struct StartsWithA;
    impl Predicate for StartsWithA {
        fn configure(&mut self, _: &ConfigMap) -> Result<()> {
            Ok(())
        }
        fn test(&self, r: &ConnectRecord) -> bool {
            r.topic.starts_with('a')
        }
    }

    fn stage(alias: &str, tag: &'static str, predicate: bool, negate: bool) -> TransformStage {
        TransformStage {
            alias: alias.into(),
            class_name: "Tag",
            transform: Box::new(Tag(tag)),
            predicate: predicate
                .then(|| ("p".to_owned(), Arc::new(StartsWithA) as Arc<dyn Predicate>)),
            negate,
        }
    }

    fn topic_after(chain: &mut TransformationChain, topic: &str) -> Option<String> {
        let r = ConnectRecord {
            topic: topic.into(),
            ..ConnectRecord::default()
        };
        chain
            .apply(r, &RecordContext::source())
            .unwrap()
            .map(|r| r.topic)
    }

    #[test]
    fn stages_apply_in_order_where_their_predicate_allows() {
        let mut chain = TransformationChain::new(vec![
            stage("one", "-1", false, false),
            stage("two", "-2", true, false),
            stage("three", "-3", true, true),
        ]);
        assert_eq!(topic_after(&mut chain, "a").as_deref(), Some("a-1-2"));
        assert_eq!(topic_after(&mut chain, "b").as_deref(), Some("b-1-3"));
    }

    /// A predicate whose evaluation fails (as a Java one that threw).
    struct Broken;
    impl Predicate for Broken {
        fn configure(&mut self, _: &ConfigMap) -> Result<()> {
            Ok(())
        }
        fn test(&self, _: &ConnectRecord) -> bool {
            true
        }
        fn try_test(&self, _: &ConnectRecord, _: &RecordContext) -> Result<bool> {
            Err(ConnectError::Other(
                "java.lang.IllegalStateException: p".into(),
            ))
        }
    }

    #[test]
    fn a_failing_predicate_fails_its_stage() {
        let mut chain = TransformationChain::new(vec![TransformStage {
            predicate: Some(("p".to_owned(), Arc::new(Broken) as Arc<dyn Predicate>)),
            ..stage("guarded", "-1", false, false)
        }]);
        let e = chain
            .apply(ConnectRecord::default(), &RecordContext::source())
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "transform 'guarded' (Tag) failed: java.lang.IllegalStateException: p"
        );
    }

    #[test]
    fn a_failure_names_the_stage() {
        let mut chain = TransformationChain::new(vec![stage("first", "", false, false)]);
        let r = ConnectRecord {
            topic: "fail".into(),
            ..ConnectRecord::default()
        };
        let e = chain.apply(r, &RecordContext::source()).unwrap_err();
        assert_eq!(e.alias, "first");
        assert_eq!(e.to_string(), "transform 'first' (Tag) failed: boom");
    }
}
