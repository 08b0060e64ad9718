//! One record through the stages of a task loop, each under the error handler
//! ([`ErrorHandler`]): sink records are converted (key, value, headers) and then transformed;
//! source records are transformed and then converted (headers, key, value), as Kafka Connect
//! does. `Ok(None)`: the record was dropped by a transform or skipped after an error.

use std::time::{Duration, Instant};

use connect_api::{ConnectRecord, Headers, RecordContext, SinkRecord, TimestampType};

use super::error::TaskError;
use super::record_converters::RecordConverters;
use super::tolerance::{ErrorHandler, Failure, Origin, Stage};
use super::transform_chain::TransformationChain;
use crate::metrics::TaskMetrics;
use crate::storage::OffsetEntry;
use crate::topics::{ConsumedRecord, ProducerRecord};

/// Time a batch spent in transformations, summed over its records: the rest of the batch's
/// per-record loop counts as conversion. Read twice per record only when the connector has
/// transformations, so a chain-less pipeline pays nothing per record.
#[derive(Debug, Default)]
pub struct StageTime {
    transform: Duration,
    transformed: bool,
}

impl StageTime {
    /// Observes the batch whose per-record loop started at `started` in the `convert` and
    /// (when transformations ran) `transform` stage histograms of `metrics`.
    pub fn observe(self, started: Instant, metrics: &TaskMetrics) {
        let total = started.elapsed();
        metrics
            .convert_time
            .observe(total.saturating_sub(self.transform).as_secs_f64());
        if self.transformed {
            metrics.transform_time.observe(self.transform.as_secs_f64());
        }
    }
}

/// Runs every transform stage on `record` where it lies, each under the handler, timed into
/// `clock`; `Ok(false)`: the record was dropped, or skipped after an error.
///
/// Without retries (the default) the stages run in a plain function: no copy of the record is
/// kept, and only a failure goes through the handler, whose future (like the retry loop's) is
/// boxed, so the per-record futures of the task loops stay small.
async fn transform(
    handler: &mut ErrorHandler,
    chain: &mut TransformationChain,
    record: &mut ConnectRecord,
    ctx: &RecordContext,
    origin: &Origin<'_>,
    clock: &mut StageTime,
) -> Result<bool, TaskError> {
    let started = Instant::now();
    let kept = if handler.policy().retry_timeout != Some(std::time::Duration::ZERO) {
        Box::pin(transform_with_retries(handler, chain, record, ctx, origin)).await
    } else {
        match transform_once(chain, record, ctx) {
            Ok(kept) => Ok(kept),
            Err(failure) => Box::pin(handler.fail(failure, origin))
                .await
                .map(|()| false),
        }
    };
    clock.transform += started.elapsed();
    clock.transformed = true;
    kept
}

/// Each stage once, in place; the first failure is returned for the handler.
fn transform_once(
    chain: &mut TransformationChain,
    record: &mut ConnectRecord,
    ctx: &RecordContext,
) -> Result<bool, Failure> {
    chain.apply_in_place(record, ctx).map_err(|e| Failure {
        stage: Stage::Transformation,
        class_name: e.class_name.to_owned(),
        error: e.source,
    })
}

/// Each stage under the handler's retries (a copy of the record is kept for another attempt).
async fn transform_with_retries(
    handler: &mut ErrorHandler,
    chain: &mut TransformationChain,
    record: &mut ConnectRecord,
    ctx: &RecordContext,
    origin: &Origin<'_>,
) -> Result<bool, TaskError> {
    for stage in chain.stages_mut() {
        let class = stage.class_name;
        let input = std::mem::take(record);
        let out = handler
            .execute(Stage::Transformation, class, origin, || {
                stage.apply(input.clone(), ctx)
            })
            .await?;
        match out.flatten() {
            Some(next) => *record = next,
            None => return Ok(false),
        }
    }
    Ok(true)
}

/// A consumed record converted (key, value, headers) and transformed (timed into `clock`),
/// for `put`.
///
/// # Errors
/// A failure that `errors.tolerance` does not allow skipping.
pub async fn sink_record(
    handler: &mut ErrorHandler,
    converters: &RecordConverters,
    chain: &mut TransformationChain,
    r: &ConsumedRecord,
    clock: &mut StageTime,
) -> Result<Option<SinkRecord>, TaskError> {
    let origin = Origin::Consumed(r);
    let topic = r.topic.as_str();
    let empty = Headers::new();
    let classes = handler.classes.clone();
    let Some(key) = handler
        .execute(Stage::KeyConverter, &classes.key, &origin, || {
            converters.key.to_connect(topic, &empty, r.key.as_deref())
        })
        .await?
    else {
        return Ok(None);
    };
    let Some(value) = handler
        .execute(Stage::ValueConverter, &classes.value, &origin, || {
            converters
                .value
                .to_connect(topic, &empty, r.value.as_deref())
        })
        .await?
    else {
        return Ok(None);
    };
    let mut headers = Headers::new();
    for (k, v) in &r.headers {
        let Some(sv) = handler
            .execute(Stage::HeaderConverter, &classes.header, &origin, || {
                converters.header.to_connect_header(topic, k, v.as_deref())
            })
            .await?
        else {
            return Ok(None);
        };
        headers.add(k.clone(), sv.schema, sv.value);
    }
    let mut record = ConnectRecord {
        topic: r.topic.clone(),
        kafka_partition: Some(r.partition),
        key_schema: key.schema,
        key: key.value,
        value_schema: value.schema,
        value: value.value,
        timestamp: Some(r.timestamp),
        headers,
    };
    let timestamp_type = TimestampType::CreateTime;
    if !chain.is_empty() {
        let ctx = RecordContext::sink(r.offset, timestamp_type);
        if !transform(handler, chain, &mut record, &ctx, &origin, clock).await? {
            return Ok(None);
        }
    }
    Ok(Some(SinkRecord {
        record,
        kafka_offset: r.offset,
        timestamp_type,
    }))
}

/// A source record transformed (timed into `clock`) and converted (headers, key, value), for
/// the producer.
///
/// # Errors
/// A failure that `errors.tolerance` does not allow skipping.
pub async fn source_record(
    handler: &mut ErrorHandler,
    converters: &RecordConverters,
    chain: &mut TransformationChain,
    record: ConnectRecord,
    offset: &OffsetEntry,
    clock: &mut StageTime,
) -> Result<Option<ProducerRecord>, TaskError> {
    // The record as the task returned it, for the reports (the dead letter queue writes it).
    // Only a transformation chain needs a copy: without one, the reports see the record
    // itself (no per-record allocation).
    let keep_original = !chain.is_empty()
        && (handler.policy().dlq.is_some() || handler.policy().log_include_messages);
    let original = if keep_original {
        Some(record.clone())
    } else if chain.is_empty() {
        None
    } else {
        Some(ConnectRecord {
            topic: record.topic.clone(),
            ..ConnectRecord::default()
        })
    };
    let mut record = record;
    if let Some(original) = &original {
        let origin = Origin::Source {
            record: original,
            offset,
            converters,
        };
        if !transform(
            handler,
            chain,
            &mut record,
            &RecordContext::source(),
            &origin,
            clock,
        )
        .await?
        {
            return Ok(None);
        }
    }
    let origin = Origin::Source {
        record: match &original {
            Some(original) if keep_original => original,
            _ => &record,
        },
        offset,
        converters,
    };
    let classes = handler.classes.clone();
    let topic = record.topic.as_str();
    let mut headers = Vec::with_capacity(record.headers.0.len());
    for h in record.headers.iter() {
        let Some(bytes) = handler
            .execute(Stage::HeaderConverter, &classes.header, &origin, || {
                converters
                    .header
                    .from_connect_header(topic, &h.key, h.schema.as_ref(), &h.value)
            })
            .await?
        else {
            return Ok(None);
        };
        headers.push((h.key.clone(), bytes));
    }
    let Some(key) = handler
        .execute(Stage::KeyConverter, &classes.key, &origin, || {
            converters.key.from_connect(
                topic,
                &record.headers,
                record.key_schema.as_ref(),
                &record.key,
            )
        })
        .await?
    else {
        return Ok(None);
    };
    let Some(value) = handler
        .execute(Stage::ValueConverter, &classes.value, &origin, || {
            converters.value.from_connect(
                topic,
                &record.headers,
                record.value_schema.as_ref(),
                &record.value,
            )
        })
        .await?
    else {
        return Ok(None);
    };
    Ok(Some(ProducerRecord {
        topic: record.topic,
        partition: record.kafka_partition,
        key,
        value,
        timestamp: record.timestamp,
        headers,
    }))
}
