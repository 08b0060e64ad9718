//! The converter's two schema caches (Kafka's `fromConnectSchemaCache` and
//! `toConnectSchemaCache`, `schemas.cache.size` entries each): least-recently-used maps, as
//! Kafka's `LRUCache` (a `LinkedHashMap` in access order), each with the last entry used in
//! front so that a stream repeating one schema skips the hashing.

use std::sync::Arc;

use connect_api::SchemaRef;
use hashlink::LruCache;

/// The size of a cache as `schemas.cache.size` gives it (a negative size caches nothing).
fn lru<K: std::hash::Hash + Eq, V>(cap: i32) -> LruCache<K, V> {
    LruCache::new(usize::try_from(cap).unwrap_or(0))
}

/// Schema JSON cached per schema instance; the cached `SchemaRef` keeps the pointer valid.
type FromLru = LruCache<usize, (SchemaRef, Arc<[u8]>)>;

/// [`FromLru`] with the last schema written in front, found by pointer without hashing.
pub(super) struct FromCache {
    lru: FromLru,
    pub(super) last: Option<(SchemaRef, Arc<[u8]>)>,
}

impl FromCache {
    pub(super) fn new(cap: i32) -> Self {
        Self {
            lru: lru(cap),
            last: None,
        }
    }

    pub(super) fn get(&mut self, schema: &SchemaRef) -> Option<Arc<[u8]>> {
        if let Some((s, json)) = &self.last {
            if Arc::ptr_eq(s, schema) {
                return Some(json.clone());
            }
        }
        let (s, json) = self.lru.get(&(Arc::as_ptr(schema) as usize))?.clone();
        self.last = Some((s, json.clone()));
        Some(json)
    }

    pub(super) fn put(&mut self, schema: &SchemaRef, json: Arc<[u8]>) {
        if self.lru.capacity() == 0 {
            return;
        }
        // Hits on `last` skip the LRU's order; refresh it before anything is evicted.
        if let Some((s, _)) = self.last.take() {
            self.lru.get(&(Arc::as_ptr(&s) as usize));
        }
        let key = Arc::as_ptr(schema) as usize;
        self.lru.insert(key, (schema.clone(), json.clone()));
        self.last = Some((schema.clone(), json));
    }

    pub(super) fn len(&self) -> usize {
        self.lru.len()
    }
}

/// Schemas cached per exact schema JSON text, with the last one used in front: records of one
/// stream nearly always repeat their schema, and comparing its text is cheaper than hashing it.
pub(super) struct ToCache {
    lru: LruCache<Vec<u8>, SchemaRef>,
    pub(super) last: Option<(Vec<u8>, SchemaRef)>,
}

impl ToCache {
    pub(super) fn new(cap: i32) -> Self {
        Self {
            lru: lru(cap),
            last: None,
        }
    }

    pub(super) fn get(&mut self, raw: &[u8]) -> Option<SchemaRef> {
        if let Some((text, schema)) = &self.last {
            if text.as_slice() == raw {
                return Some(schema.clone());
            }
        }
        let schema = self.lru.get(raw)?.clone();
        self.last = Some((raw.to_vec(), schema.clone()));
        Some(schema)
    }

    pub(super) fn put(&mut self, raw: Vec<u8>, schema: SchemaRef) {
        if self.lru.capacity() == 0 {
            return;
        }
        // Hits on `last` skip the LRU's order; refresh it before anything is evicted.
        if let Some((text, _)) = self.last.take() {
            self.lru.get(text.as_slice());
        }
        self.lru.insert(raw.clone(), schema.clone());
        self.last = Some((raw, schema));
    }

    pub(super) fn len(&self) -> usize {
        self.lru.len()
    }
}
