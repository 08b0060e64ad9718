package io.connectrs.host.wire.codec;

import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Makes the {@link SinkRecord} of a decoded sink record, so the host can make its own subclass that keeps
 * {@code recordRef} (for {@code ErrantRecordReporter}).
 */
@FunctionalInterface
public interface SinkRecordFactory {
    SinkRecord create(String topic, int partition, Schema keySchema, Object key, Schema valueSchema, Object value,
                      long kafkaOffset, Long timestamp, TimestampType timestampType, Iterable<Header> headers,
                      String originalTopic, Integer originalPartition, long originalOffset, int recordRef);

    /** A plain {@link SinkRecord} (the reference is dropped). */
    SinkRecordFactory PLAIN = (topic, partition, keySchema, key, valueSchema, value, kafkaOffset, timestamp,
                               timestampType, headers, originalTopic, originalPartition, originalOffset, recordRef) ->
        new SinkRecord(topic, partition, keySchema, key, valueSchema, value, kafkaOffset, timestamp, timestampType,
            headers, originalTopic, originalPartition, originalOffset);
}
