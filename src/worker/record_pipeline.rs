//! One record through the stages of a task loop, each under the error handler
//! ([`ErrorHandler`]): sink records are converted (key, value, headers) and then transformed;
//! source records are transformed and then converted (headers, key, value), as Kafka Connect
//! does. `Ok(None)`: the record was dropped by a transform or skipped after an error.

use std::time::{Duration, Instant};

use connect_api::{ConnectRecord, Headers, RecordContext, SinkRecord, SourceRecord, TimestampType};

use super::activity::TaskActivity;
use super::error::TaskError;
use super::record_converters::{split, RecordConverters};
use super::record_offset::RecordOffset;
use super::tolerance::{ErrorHandler, Failure, Origin, Stage};
use super::transform_chain::TransformationChain;
use crate::metrics::TaskMetrics;
use crate::topics::{ConsumedRecord, ProducerRecord};

/// Time a batch spent in transformations, summed over its records: the rest of the batch's
/// per-record loop counts as conversion. Read only when the connector has transformations, so a
/// chain-less pipeline pays nothing per record. The first [`TIME_EVERY_RECORD`] records of a
/// batch are each timed; after them every [`SAMPLE_EVERY`]th, and the untimed ones are counted at
/// the timed ones' mean (two clock reads per record were a tenth of a short chain's cost).
#[derive(Debug, Default)]
pub struct StageTime {
    transform: Duration,
    /// Records that went through the transformations.
    seen: u32,
    /// Of them, the ones whose transformations were timed.
    timed: u32,
}

/// Records at the start of a batch whose transformations are each timed.
const TIME_EVERY_RECORD: u32 = 64;
/// After those, one record in this many is timed.
const SAMPLE_EVERY: u32 = 8;

impl StageTime {
    /// Whether the next record's transformations are timed (counts the record).
    fn next_is_timed(&mut self) -> bool {
        self.seen += 1;
        self.seen <= TIME_EVERY_RECORD || self.seen.is_multiple_of(SAMPLE_EVERY)
    }

    /// Adds one timed record's transformation time.
    fn add_timed(&mut self, took: Duration) {
        self.transform += took;
        self.timed += 1;
    }

    /// The batch's transformation time: the timed records' sum, scaled to all records.
    fn transform_total(&self) -> Duration {
        if self.timed == 0 || self.timed == self.seen {
            return self.transform;
        }
        self.transform
            .mul_f64(f64::from(self.seen) / f64::from(self.timed))
    }

    /// Observes the batch whose per-record loop started at `started` in the `convert` and
    /// (when transformations ran) `transform` stage histograms of `metrics`.
    pub fn observe(self, started: Instant, metrics: &TaskMetrics) {
        let total = started.elapsed();
        let transform = self.transform_total().min(total);
        metrics
            .convert_time
            .observe(total.saturating_sub(transform).as_secs_f64());
        if self.seen > 0 {
            metrics.transform_time.observe(transform.as_secs_f64());
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
    let started = clock.next_is_timed().then(Instant::now);
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
    if let Some(started) = started {
        clock.add_timed(started.elapsed());
    }
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

/// Without transformations, a consumed record converted in a plain call, when every
/// conversion succeeds: then the error handler has nothing to do (and no per-record future is
/// built). `None`: use [`sink_record`] (it converts again, under the handler).
pub fn plain_sink_record(
    converters: &RecordConverters,
    chain: &TransformationChain,
    r: &ConsumedRecord,
) -> Option<SinkRecord> {
    if chain.is_empty() {
        converters.from_topic(r).ok()
    } else {
        None
    }
}

/// A consumed record converted (key, value, headers) and transformed (timed into `clock`),
/// for `put`. `converted` is called once the record is converted, before its transforms
/// (where Kafka Connect's sink task records the topic as active, KIP-558).
///
/// # Errors
/// A failure that `errors.tolerance` does not allow skipping.
pub async fn sink_record(
    handler: &mut ErrorHandler,
    converters: &RecordConverters,
    chain: &mut TransformationChain,
    r: &ConsumedRecord,
    clock: &mut StageTime,
    converted: impl FnOnce(),
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
    converted();
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
    offset: &RecordOffset,
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
    // A value whose serialized form is its own bytes is moved into the topic record, not
    // copied (the record is not reported after this stage).
    let as_is = converters
        .value
        .serializes_as_is(record.value_schema.as_ref(), &record.value);
    let value = if as_is {
        std::mem::take(&mut record.value).into_raw_bytes()
    } else {
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
        value
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

/// A polled source batch through the stages: the poll's metrics, then every record transformed
/// and converted ([`source_record`]); each record's offset is kept, in order, also when a
/// transform dropped the record or an error skipped it. Dead-lettered records are durable before
/// this returns, so the offsets may be committed once the records are. Returns the records to
/// produce and the batch's offsets.
///
/// # Errors
/// A failure that `errors.tolerance` does not allow skipping, or a dead letter queue failure.
pub async fn source_batch(
    activity: &TaskActivity,
    handler: &mut ErrorHandler,
    converters: &RecordConverters,
    chain: &mut TransformationChain,
    batch: Vec<SourceRecord>,
    poll_started: Instant,
    mut kept: Option<&mut Vec<bool>>,
) -> Result<(Vec<ProducerRecord>, Vec<RecordOffset>), TaskError> {
    let metrics = &activity.metrics;
    let polled_at = Instant::now();
    metrics
        .source
        .poll_batch_time
        .observe((polled_at - poll_started).as_secs_f64());
    // `inflow` below counts `source-record-poll-total`.
    #[allow(clippy::cast_precision_loss)]
    metrics.batch_size.observe(batch.len() as f64);
    activity.busy();
    activity.set_unavailable(None);
    let polled = u64::try_from(batch.len()).unwrap_or(u64::MAX);
    activity.inflow.add("polled", polled, 0);
    let mut offsets = Vec::with_capacity(batch.len());
    let mut records = Vec::with_capacity(batch.len());
    let mut clock = StageTime::default();
    for source_record in batch {
        let (offset, record) = split(source_record);
        // Without transformations, a record whose conversions succeed needs nothing of the
        // error handler: converted in a plain call (no per-record future). A failed one is
        // converted again below, under the handler.
        let record = if chain.is_empty() {
            match converters.into_topic(record) {
                Ok(r) => {
                    records.push(r);
                    offsets.push(offset);
                    if let Some(kept) = kept.as_deref_mut() {
                        kept.push(true);
                    }
                    continue;
                }
                Err(record) => *record,
            }
        } else {
            record
        };
        let converted =
            self::source_record(handler, converters, chain, record, &offset, &mut clock).await?;
        if let Some(kept) = kept.as_deref_mut() {
            kept.push(converted.is_some());
        }
        if let Some(r) = converted {
            records.push(r);
        }
        offsets.push(offset);
    }
    clock.observe(polled_at, metrics);
    handler.flush().await?;
    Ok((records, offsets))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::converters::byte_array::ByteArrayConverter;
    use crate::converters::json::JsonConverter;
    use crate::converters::simple_header::SimpleHeaderConverter;
    use crate::converters::string::StringConverter;
    use crate::worker::error_counters::ErrorCounters;
    use crate::worker::tolerance::{ConverterClasses, ErrorPolicy};
    use connect_api::{Converter, OffsetMap, Value};
    use std::sync::Arc;
    use tokio_util::sync::CancellationToken;

    /// `value` through the source stages with `converter` for values; the record's value bytes.
    async fn produced(converter: Box<dyn Converter>, value: Value) -> Option<Vec<u8>> {
        let mut handler = ErrorHandler::new(
            ErrorPolicy::default(),
            "c-0".into(),
            Arc::new(ErrorCounters::default()),
            None,
            ConverterClasses::default(),
            CancellationToken::new(),
        );
        let converters = RecordConverters {
            key: Box::new(StringConverter::new()),
            value: converter,
            header: Box::new(SimpleHeaderConverter),
        };
        let record = ConnectRecord {
            topic: "t".into(),
            value,
            ..ConnectRecord::default()
        };
        let offset = (Arc::new(OffsetMap::new()), None);
        let mut chain = TransformationChain::new(Vec::new());
        let mut clock = StageTime::default();
        source_record(
            &mut handler,
            &converters,
            &mut chain,
            record,
            &offset,
            &mut clock,
        )
        .await
        .unwrap()
        .unwrap()
        .value
    }

    #[tokio::test]
    async fn a_value_serialized_as_is_is_moved_into_the_topic_record() {
        let text = String::from("a line of text");
        let at = text.as_ptr();
        let out = produced(Box::new(StringConverter::new()), Value::String(text)).await;
        let out = out.unwrap();
        assert_eq!(out, b"a line of text");
        assert_eq!(out.as_ptr(), at, "the string's own buffer");

        let bytes = vec![0u8, 255, 7];
        let at = bytes.as_ptr();
        let out = produced(Box::new(ByteArrayConverter::new()), Value::Bytes(bytes)).await;
        let out = out.unwrap();
        assert_eq!(out, [0u8, 255, 7]);
        assert_eq!(out.as_ptr(), at, "the value's own buffer");
    }

    #[tokio::test]
    async fn other_values_go_through_the_converter() {
        let out = produced(Box::new(StringConverter::new()), Value::Int32(42)).await;
        assert_eq!(out.as_deref(), Some(&b"42"[..]));
        let out = produced(Box::new(StringConverter::new()), Value::Null).await;
        assert_eq!(out, None);
        let mut json = JsonConverter::new();
        json.configure(&connect_api::ConfigMap::new(), false)
            .unwrap();
        let out = produced(Box::new(json), Value::String("x".into())).await;
        assert_eq!(
            String::from_utf8(out.unwrap()).unwrap(),
            r#"{"schema":null,"payload":"x"}"#
        );
    }

    /// Feeds `records` records whose transformations each take `each`, as `transform` does.
    fn batch(records: u32, each: Duration) -> StageTime {
        let mut clock = StageTime::default();
        for _ in 0..records {
            if clock.next_is_timed() {
                clock.add_timed(each);
            }
        }
        clock
    }

    #[test]
    fn a_short_batch_times_every_record() {
        let clock = batch(TIME_EVERY_RECORD, Duration::from_micros(3));
        assert_eq!(clock.timed, TIME_EVERY_RECORD);
        assert_eq!(
            clock.transform_total(),
            Duration::from_micros(3 * u64::from(TIME_EVERY_RECORD))
        );
    }

    #[test]
    fn a_long_batch_samples_and_counts_every_record_at_the_mean() {
        let clock = batch(1000, Duration::from_micros(2));
        assert_eq!(clock.seen, 1000);
        assert_eq!(
            clock.timed,
            TIME_EVERY_RECORD + (1000 - TIME_EVERY_RECORD) / SAMPLE_EVERY
        );
        let total = clock.transform_total().as_nanos();
        assert!((1_999_000..=2_001_000).contains(&total), "{total} ns");
    }

    #[test]
    fn a_batch_without_transformations_reports_none() {
        assert_eq!(StageTime::default().transform_total(), Duration::ZERO);
    }
}
