//! Schema definitions and the intern tables (sender and receiver side).

use std::collections::HashMap;
use std::sync::Arc;

use connect_api::{Field, Schema, SchemaRef, SchemaType};
use indexmap::IndexMap;

use super::error::CodecError;
use super::primitive::{put_i32, put_str, put_u32, put_uvarint, Reader};
use super::value::{read_value, write_value};
use super::MAX_DEPTH;

/// Schema flag: null is a valid value.
pub(super) const F_OPTIONAL: u8 = 0x01;
/// Schema flag: a default value follows.
pub(super) const F_DEFAULT: u8 = 0x02;
/// Schema flag: a name follows.
pub(super) const F_NAME: u8 = 0x04;
/// Schema flag: a version follows.
pub(super) const F_VERSION: u8 = 0x08;
/// Schema flag: a doc follows.
pub(super) const F_DOC: u8 = 0x10;
/// Schema flag: parameters follow.
pub(super) const F_PARAMS: u8 = 0x20;
const F_ALL: u8 = F_OPTIONAL | F_DEFAULT | F_NAME | F_VERSION | F_DOC | F_PARAMS;

/// The wire code of a schema type.
pub(super) fn type_code(t: SchemaType) -> u8 {
    match t {
        SchemaType::Int8 => 0,
        SchemaType::Int16 => 1,
        SchemaType::Int32 => 2,
        SchemaType::Int64 => 3,
        SchemaType::Float32 => 4,
        SchemaType::Float64 => 5,
        SchemaType::Boolean => 6,
        SchemaType::String => 7,
        SchemaType::Bytes => 8,
        SchemaType::Array => 9,
        SchemaType::Map => 10,
        SchemaType::Struct => 11,
    }
}

fn type_of(code: u8, offset: usize) -> Result<SchemaType, CodecError> {
    Ok(match code {
        0 => SchemaType::Int8,
        1 => SchemaType::Int16,
        2 => SchemaType::Int32,
        3 => SchemaType::Int64,
        4 => SchemaType::Float32,
        5 => SchemaType::Float64,
        6 => SchemaType::Boolean,
        7 => SchemaType::String,
        8 => SchemaType::Bytes,
        9 => SchemaType::Array,
        10 => SchemaType::Map,
        11 => SchemaType::Struct,
        tag => {
            return Err(CodecError::UnknownTag {
                kind: "schema type",
                tag,
                offset,
                expected: "0 (INT8) .. 11 (STRUCT)",
            })
        }
    })
}

/// How many identity-cache entries a sender keeps before it forgets them (the cache only saves
/// work; ids come from the definition bytes).
const IDENTITY_CACHE_MAX: usize = 4 * super::MAX_INTERNED;

/// The sender's table of one kind of definition: body bytes → id, plus an identity cache.
#[derive(Debug)]
pub(super) struct Interner<T> {
    kind: &'static str,
    def_tag: u8,
    /// The next id to give.
    next: u32,
    by_body: HashMap<Vec<u8>, u32>,
    /// `Arc` pointer → (the `Arc`, kept so the address is not reused; id).
    by_ptr: HashMap<usize, (Arc<T>, u32)>,
}

/// One generation of an [`Interner`], set aside by a reset until the item is complete.
#[derive(Debug)]
pub(super) struct Generation<T> {
    by_body: HashMap<Vec<u8>, u32>,
    by_ptr: HashMap<usize, (Arc<T>, u32)>,
}

impl<T> Interner<T> {
    pub(super) fn new(kind: &'static str, def_tag: u8) -> Self {
        Self {
            kind,
            def_tag,
            next: 1,
            by_body: HashMap::new(),
            by_ptr: HashMap::new(),
        }
    }

    /// Definitions in the current generation.
    pub(super) fn len(&self) -> usize {
        self.by_body.len()
    }

    /// The next id (for rollback).
    pub(super) fn mark(&self) -> u32 {
        self.next
    }

    /// The id of an `Arc` seen before.
    pub(super) fn cached(&self, a: &Arc<T>) -> Option<u32> {
        self.by_ptr
            .get(&(Arc::as_ptr(a) as *const () as usize))
            .map(|(_, id)| *id)
    }

    /// Remembers the id of an `Arc`.
    pub(super) fn remember(&mut self, a: &Arc<T>, id: u32) {
        if self.by_ptr.len() >= IDENTITY_CACHE_MAX {
            self.by_ptr.clear();
        }
        self.by_ptr
            .insert(Arc::as_ptr(a) as *const () as usize, (Arc::clone(a), id));
    }

    /// The id of a definition body; a new one is written to `defs` first.
    pub(super) fn intern(&mut self, body: Vec<u8>, defs: &mut Vec<u8>) -> Result<u32, CodecError> {
        if let Some(id) = self.by_body.get(&body) {
            return Ok(*id);
        }
        let id = self.next;
        self.next = id
            .checked_add(1)
            .ok_or(CodecError::IdsExhausted { kind: self.kind })?;
        defs.push(self.def_tag);
        put_u32(defs, id);
        defs.extend_from_slice(&body);
        self.by_body.insert(body, id);
        Ok(id)
    }

    /// Starts a new generation; returns the old one.
    pub(super) fn reset(&mut self) -> Generation<T> {
        Generation {
            by_body: std::mem::take(&mut self.by_body),
            by_ptr: std::mem::take(&mut self.by_ptr),
        }
    }

    /// Forgets every id given since `mark`; with `before_reset`, also undoes that reset.
    pub(super) fn rollback(&mut self, mark: u32, before_reset: Option<Generation<T>>) {
        self.next = mark;
        match before_reset {
            Some(g) => {
                self.by_body = g.by_body;
                self.by_ptr = g.by_ptr;
            }
            None => {
                self.by_body.retain(|_, id| *id < mark);
                self.by_ptr.retain(|_, (_, id)| *id < mark);
            }
        }
    }
}

/// The receiver's table of one kind of definition: id → object, for the current generation.
#[derive(Debug)]
pub(super) struct Table<T> {
    kind: &'static str,
    /// The id of `entries[0]`.
    first: u32,
    entries: Vec<T>,
}

impl<T: Clone> Table<T> {
    pub(super) fn new(kind: &'static str) -> Self {
        Self {
            kind,
            first: 1,
            entries: Vec::new(),
        }
    }

    fn next(&self) -> u32 {
        self.first.saturating_add(self.entries.len() as u32)
    }

    /// The object of `id` (read at `offset`).
    pub(super) fn get(&self, id: u32, offset: usize) -> Result<T, CodecError> {
        id.checked_sub(self.first)
            .and_then(|i| self.entries.get(i as usize))
            .cloned()
            .ok_or(CodecError::UnknownId {
                kind: self.kind,
                id,
                offset,
                first: self.first,
                next: self.next(),
            })
    }

    /// Checks that a definition carries the next id.
    pub(super) fn check_next(&self, id: u32, offset: usize) -> Result<(), CodecError> {
        if id == self.next() {
            Ok(())
        } else {
            Err(CodecError::DefinitionOutOfOrder {
                kind: self.kind,
                found: id,
                expected: self.next(),
                offset,
            })
        }
    }

    /// Adds the definition checked by [`Self::check_next`].
    pub(super) fn push(&mut self, value: T) {
        self.entries.push(value);
    }

    /// Starts a new generation: ids keep counting.
    pub(super) fn reset(&mut self) {
        self.first = self.next();
        self.entries.clear();
    }
}

/// The id of `schema`, defining it (and its children) in `defs` when new.
pub(super) fn intern_schema(
    schemas: &mut Interner<Schema>,
    schema: &SchemaRef,
    defs: &mut Vec<u8>,
    depth: usize,
) -> Result<u32, CodecError> {
    if let Some(id) = schemas.cached(schema) {
        return Ok(id);
    }
    if depth > MAX_DEPTH {
        return Err(CodecError::TooDeep {
            what: "schemas",
            max: MAX_DEPTH,
        });
    }
    let mut body = Vec::with_capacity(16);
    body.push(type_code(schema.schema_type));
    let flags = (if schema.optional { F_OPTIONAL } else { 0 })
        | (if schema.default.is_some() {
            F_DEFAULT
        } else {
            0
        })
        | (if schema.name.is_some() { F_NAME } else { 0 })
        | (if schema.version.is_some() {
            F_VERSION
        } else {
            0
        })
        | (if schema.doc.is_some() { F_DOC } else { 0 })
        | (if schema.parameters.is_some() {
            F_PARAMS
        } else {
            0
        });
    body.push(flags);
    if let Some(name) = &schema.name {
        put_str(&mut body, name);
    }
    if let Some(version) = schema.version {
        put_i32(&mut body, version);
    }
    if let Some(doc) = &schema.doc {
        put_str(&mut body, doc);
    }
    if let Some(params) = &schema.parameters {
        put_uvarint(&mut body, params.len() as u64);
        for (k, v) in params {
            put_str(&mut body, k);
            put_str(&mut body, v);
        }
    }
    let missing = |what: &str| CodecError::InvalidSchema {
        message: format!(
            "{} schema{} has no {what}",
            schema.schema_type.name(),
            schema
                .name
                .as_deref()
                .map(|n| format!(" '{n}'"))
                .unwrap_or_default()
        ),
    };
    match schema.schema_type {
        SchemaType::Struct => {
            put_uvarint(&mut body, schema.fields.len() as u64);
            for field in &schema.fields {
                put_str(&mut body, &field.name);
                let id = intern_schema(schemas, &field.schema, defs, depth + 1)?;
                put_u32(&mut body, id);
            }
        }
        SchemaType::Array => {
            let items = schema
                .value_schema
                .as_ref()
                .ok_or_else(|| missing("item schema"))?;
            let id = intern_schema(schemas, items, defs, depth + 1)?;
            put_u32(&mut body, id);
        }
        SchemaType::Map => {
            let keys = schema
                .key_schema
                .as_ref()
                .ok_or_else(|| missing("key schema"))?;
            let values = schema
                .value_schema
                .as_ref()
                .ok_or_else(|| missing("value schema"))?;
            let k = intern_schema(schemas, keys, defs, depth + 1)?;
            let v = intern_schema(schemas, values, defs, depth + 1)?;
            put_u32(&mut body, k);
            put_u32(&mut body, v);
        }
        _ => {}
    }
    // The default comes last, so the reader knows the children (item, key, value schemas)
    // before it reads the default (Java converts logical defaults with them).
    if let Some(default) = &schema.default {
        write_value(schemas, default, &mut body, defs, depth + 1)?;
    }
    let id = schemas.intern(body, defs)?;
    schemas.remember(schema, id);
    Ok(id)
}

/// A schema id (0 = none) read at the reader's position.
pub(super) fn read_schema_id(
    schemas: &Table<SchemaRef>,
    r: &mut Reader<'_>,
    expected: &'static str,
) -> Result<Option<SchemaRef>, CodecError> {
    let offset = r.position();
    match r.u32(expected)? {
        0 => Ok(None),
        id => schemas.get(id, offset).map(Some),
    }
}

fn read_child(
    schemas: &Table<SchemaRef>,
    r: &mut Reader<'_>,
    expected: &'static str,
) -> Result<SchemaRef, CodecError> {
    let offset = r.position();
    read_schema_id(schemas, r, expected)?.ok_or_else(|| CodecError::BadSchema {
        offset,
        message: format!("{expected} is 0; expected the id of a defined schema"),
    })
}

/// Reads a SCHEMA_DEF body (after its tag) into the table.
pub(super) fn read_schema_def(
    schemas: &mut Table<SchemaRef>,
    r: &mut Reader<'_>,
) -> Result<(), CodecError> {
    let offset = r.position();
    let id = r.u32("a schema definition's id")?;
    schemas.check_next(id, offset)?;
    let type_offset = r.position();
    let schema_type = type_of(r.u8("a schema type")?, type_offset)?;
    let flags_offset = r.position();
    let flags = r.u8("schema flags")?;
    if flags & !F_ALL != 0 {
        return Err(CodecError::BadSchema {
            offset: flags_offset,
            message: format!("unknown flag bits {flags:#04x}; expected a combination of 0x01 (optional), 0x02 (default), 0x04 (name), 0x08 (version), 0x10 (doc), 0x20 (parameters)"),
        });
    }
    let mut schema = Schema::of(schema_type, flags & F_OPTIONAL != 0);
    if flags & F_NAME != 0 {
        schema.name = Some(r.str("a schema name")?.to_owned());
    }
    if flags & F_VERSION != 0 {
        schema.version = Some(r.i32("a schema version")?);
    }
    if flags & F_DOC != 0 {
        schema.doc = Some(r.str("a schema doc")?.to_owned());
    }
    if flags & F_PARAMS != 0 {
        let n = r.len("the number of schema parameters")?;
        let mut params = IndexMap::with_capacity(n);
        for _ in 0..n {
            let k = r.str("a schema parameter name")?.to_owned();
            let v = r.str("a schema parameter value")?.to_owned();
            params.insert(k, v);
        }
        schema.parameters = Some(params);
    }
    match schema_type {
        SchemaType::Struct => {
            let n = r.len("the number of struct fields")?;
            schema.fields.reserve(n);
            for index in 0..n {
                let name = r.str("a struct field name")?.to_owned();
                let field_schema = read_child(schemas, r, "a struct field's schema id")?;
                schema.fields.push(Field {
                    name,
                    index,
                    schema: field_schema,
                });
            }
        }
        SchemaType::Array => {
            schema.value_schema = Some(read_child(schemas, r, "an array's item schema id")?);
        }
        SchemaType::Map => {
            schema.key_schema = Some(read_child(schemas, r, "a map's key schema id")?);
            schema.value_schema = Some(read_child(schemas, r, "a map's value schema id")?);
        }
        _ => {}
    }
    if flags & F_DEFAULT != 0 {
        schema.default = Some(read_value(schemas, r, 0)?);
    }
    schemas.push(Arc::new(schema));
    Ok(())
}
