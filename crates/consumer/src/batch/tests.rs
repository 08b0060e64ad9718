use super::*;

use bytes::BytesMut;
use kafka_protocol::indexmap::IndexMap;
use kafka_protocol::records::{
    Compression, Record, RecordBatchEncoder, RecordEncodeOptions, TimestampType,
};

/// Records at `offsets` of producer `producer_id` (transactional when >= 0), encoded by
/// kafka-protocol's encoder (independent of the decoder under test) with `compression`. A
/// control record's type is ABORT at even offsets and COMMIT at odd ones.
fn batch(
    offsets: std::ops::Range<i64>,
    producer_id: i64,
    control: bool,
    compression: Compression,
) -> Bytes {
    let records: Vec<Record> = offsets
        .map(|o| Record {
            transactional: producer_id >= 0,
            control,
            delete_horizon: false,
            partition_leader_epoch: 0,
            producer_id,
            producer_epoch: 0,
            timestamp_type: TimestampType::Creation,
            offset: o,
            sequence: if producer_id >= 0 { o as i32 } else { -1 },
            timestamp: 1_000 + o,
            key: Some(if control {
                Bytes::from(vec![0, 0, 0, (o % 2) as u8])
            } else {
                Bytes::from(format!("k{o}"))
            }),
            value: (o % 3 != 0).then(|| Bytes::from(format!("v{o}"))),
            headers: IndexMap::from_iter([(
                "h".to_owned().into(),
                Some(Bytes::from(format!("{o}"))),
            )]),
        })
        .collect();
    let mut buf = BytesMut::new();
    RecordBatchEncoder::encode(
        &mut buf,
        &records,
        &RecordEncodeOptions {
            version: 2,
            compression,
        },
    )
    .unwrap();
    buf.freeze()
}

fn cat(parts: &[Bytes]) -> Bytes {
    parts.concat().into()
}

fn offsets(d: &Decoded) -> Vec<i64> {
    d.records.iter().map(|r| r.offset).collect()
}

#[test]
fn records_keep_keys_values_timestamps_and_headers() {
    for compression in [Compression::None, Compression::Gzip, Compression::Snappy] {
        let d = decode(batch(5..9, -1, false, compression), 0, None).unwrap();
        assert_eq!(offsets(&d), [5, 6, 7, 8], "{compression:?}");
        assert_eq!(d.next_offset, Some(9));
        let r = &d.records[1];
        assert_eq!(r.timestamp, 1_006);
        assert_eq!(r.key.as_deref(), Some(&b"k6"[..]));
        assert_eq!(r.value.as_deref(), None, "offset 6 has a null value");
        assert_eq!(d.records[0].value.as_deref(), Some(&b"v5"[..]));
        assert_eq!(r.headers, [("h".to_owned(), Some(Bytes::from("6")))]);
    }
}

#[test]
fn records_before_the_fetched_offset_and_a_partial_last_batch_are_left_out() {
    let whole = cat(&[
        batch(0..4, -1, false, Compression::None),
        batch(4..8, -1, false, Compression::None),
    ]);
    assert_eq!(
        offsets(&decode(whole.clone(), 2, None).unwrap()),
        [2, 3, 4, 5, 6, 7]
    );
    let d = decode(whole.slice(..whole.len() - 3), 2, None).unwrap();
    let got = offsets(&d);
    let last = *got.last().unwrap();
    assert!(last < 7, "the cut batch is left out: {got:?}");
    assert_eq!(got, (2..=last).collect::<Vec<_>>());
    assert_eq!(
        d.next_offset,
        Some(last + 1),
        "the cut batch is fetched again"
    );
    let d = decode(whole.slice(..20), 0, None).unwrap();
    assert_eq!((d.records.len(), d.next_offset), (0, None));
}

#[test]
fn read_committed_drops_aborted_transactions_and_control_records() {
    let bytes = cat(&[
        batch(0..3, 7, false, Compression::None), // producer 7's transaction, aborted
        batch(3..5, 8, false, Compression::None), // producer 8's, committed
        batch(5..6, 8, true, Compression::None),  // COMMIT marker of 8
        batch(6..7, 7, true, Compression::None),  // ABORT marker of 7
        batch(7..9, 7, false, Compression::None), // 7's next transaction, committed
    ]);
    let aborted = [AbortedTransaction {
        producer_id: 7,
        first_offset: 0,
    }];
    let d = decode(bytes.clone(), 0, Some(&aborted)).unwrap();
    assert_eq!(offsets(&d), [3, 4, 7, 8]);
    assert_eq!(d.next_offset, Some(9));
    // read_uncommitted: every data record, never a control record.
    let d = decode(bytes, 0, None).unwrap();
    assert_eq!(offsets(&d), [0, 1, 2, 3, 4, 7, 8]);
}

#[test]
fn duplicate_header_keys_are_kept_in_order_and_a_bad_checksum_is_refused() {
    // A batch written by hand: kafka-protocol's encoder keeps headers in a map.
    let mut record = vec![0u8]; // attributes
    put_varint(&mut record, 0); // timestamp delta
    put_varint(&mut record, 0); // offset delta
    put_varint(&mut record, -1); // null key
    put_varint(&mut record, 1);
    record.push(b'x');
    put_varint(&mut record, 2);
    for (k, v) in [("a", "1"), ("a", "2")] {
        put_varint(&mut record, k.len() as i64);
        record.extend(k.as_bytes());
        put_varint(&mut record, v.len() as i64);
        record.extend(v.as_bytes());
    }
    let mut body = Vec::new();
    body.extend(0i16.to_be_bytes()); // attributes
    body.extend(0i32.to_be_bytes()); // last offset delta
    body.extend(50i64.to_be_bytes()); // base timestamp
    body.extend(50i64.to_be_bytes()); // max timestamp
    body.extend((-1i64).to_be_bytes()); // producer id
    body.extend((-1i16).to_be_bytes()); // producer epoch
    body.extend((-1i32).to_be_bytes()); // base sequence
    body.extend(1i32.to_be_bytes()); // record count
    put_varint(&mut body, record.len() as i64);
    body.extend(record);
    let mut b = Vec::new();
    b.extend(42i64.to_be_bytes());
    b.extend(((body.len() + 9) as i32).to_be_bytes());
    b.extend(0i32.to_be_bytes()); // leader epoch
    b.push(2);
    b.extend(crc32c::crc32c(&body).to_be_bytes());
    b.extend(&body);
    let d = decode(Bytes::from(b.clone()), 0, None).unwrap();
    assert_eq!(
        d.records[0].headers,
        [
            ("a".to_owned(), Some(Bytes::from("1"))),
            ("a".to_owned(), Some(Bytes::from("2")))
        ]
    );
    assert_eq!((d.records[0].offset, d.records[0].timestamp), (42, 50));
    let last = b.len() - 1;
    b[last] ^= 1;
    let e = decode(Bytes::from(b), 0, None).unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
}

fn put_varint(out: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    loop {
        let b = (z & 0x7f) as u8;
        z >>= 7;
        if z == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}
