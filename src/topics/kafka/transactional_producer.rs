//! A source task's transactional producer (KIP-618): a [`KafkaProducer`] with a
//! `transactional.id`, whose transaction calls (blocking in librdkafka) run on the blocking
//! pool.

use std::time::Duration;

use futures::future::BoxFuture;
use futures::FutureExt;
use rdkafka::error::KafkaError;
use rdkafka::producer::Producer;
use rdkafka::util::Timeout;

use super::KafkaProducer;
use crate::topics::{Delivery, ProducerRecord, TopicError, TopicProducer, TransactionalProducer};

/// How long `init_transactions`, a commit or an abort may take (librdkafka's default
/// `transaction.timeout.ms` is 60 s; a commit also waits for the records to be delivered).
const TRANSACTION_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// A [`KafkaProducer`] created with a `transactional.id`.
#[derive(Debug)]
pub struct TransactionalKafkaProducer {
    inner: KafkaProducer,
    transactional_id: String,
}

impl TransactionalKafkaProducer {
    /// Wraps `inner`, which was created by [`KafkaProducer::transactional`] with
    /// `transactional_id`.
    pub fn new(inner: KafkaProducer, transactional_id: String) -> Self {
        Self {
            inner,
            transactional_id,
        }
    }

    /// Runs a blocking transaction call on the blocking pool.
    fn blocking<'a>(
        &'a self,
        what: &'static str,
        call: fn(
            &rdkafka::producer::FutureProducer<super::refusal::WatchedContext>,
        ) -> Result<(), KafkaError>,
    ) -> BoxFuture<'a, Result<(), TopicError>> {
        let producer = self.inner.client().clone();
        let id = self.transactional_id.clone();
        async move {
            tokio::task::spawn_blocking(move || call(&producer))
                .await
                .map_err(|e| {
                    TopicError::Other(format!(
                        "{what} of transactional id '{id}' did not finish: {e}"
                    ))
                })?
                .map_err(|e| transaction_error(what, &id, &e))
        }
        .boxed()
    }
}

/// A transaction call's failure: retriable when librdkafka says so, else not (fenced by a newer
/// producer with the same transactional id, or a fatal producer error).
fn transaction_error(what: &str, id: &str, e: &KafkaError) -> TopicError {
    let message = format!("{what} of transactional id '{id}' failed: {e}");
    match e {
        KafkaError::Transaction(t) if t.is_fatal() => TopicError::Other(format!(
            "{message} (fatal: the producer was fenced by a newer task generation or cannot \
             continue)"
        )),
        KafkaError::Transaction(t) if t.is_retriable() || t.txn_requires_abort() => {
            TopicError::Retriable(message)
        }
        _ => TopicError::Other(message),
    }
}

impl TopicProducer for TransactionalKafkaProducer {
    fn send_batch(
        &self,
        records: Vec<ProducerRecord>,
    ) -> BoxFuture<'_, Result<Delivery, TopicError>> {
        self.inner.send_batch(records)
    }

    fn send_batch_positioned(
        &self,
        records: Vec<ProducerRecord>,
        offsets: Option<crate::topics::SourceOffsets>,
    ) -> BoxFuture<'_, Result<crate::topics::PositionedDelivery, TopicError>> {
        self.inner.send_batch_positioned(records, offsets)
    }
}

impl TransactionalProducer for TransactionalKafkaProducer {
    fn init(&self) -> BoxFuture<'_, Result<(), TopicError>> {
        self.blocking("Initializing the transactions", |p| {
            p.init_transactions(Timeout::After(TRANSACTION_CALL_TIMEOUT))
        })
    }

    fn begin(&self) -> Result<(), TopicError> {
        self.inner
            .client()
            .begin_transaction()
            .map_err(|e| transaction_error("Beginning a transaction", &self.transactional_id, &e))
    }

    fn commit(&self) -> BoxFuture<'_, Result<(), TopicError>> {
        self.blocking("Committing the transaction", |p| {
            p.commit_transaction(Timeout::After(TRANSACTION_CALL_TIMEOUT))
        })
    }

    fn abort(&self) -> BoxFuture<'_, Result<(), TopicError>> {
        self.blocking("Aborting the transaction", |p| {
            p.abort_transaction(Timeout::After(TRANSACTION_CALL_TIMEOUT))
        })
    }
}
