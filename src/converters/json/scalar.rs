//! Jackson's lenient accessors for a primitive schema: what Kafka's JsonConverter reads from a
//! non-null JSON scalar for a boolean, number, string or bytes field. One function for the tree
//! reader (borrowed nodes) and the streaming reader (owned nodes, strings moved).

use std::borrow::Cow;

use connect_api::{SchemaType, Value};

use super::decode_base64;
use super::node::Node;

/// The value of the non-null `node` read as type `t`. A node of another kind reads as Jackson's
/// accessors give it (0, false, null). `None` for a container type, or bytes that are not base64.
pub(super) fn scalar_value(t: SchemaType, node: Cow<'_, Node>) -> Option<Value> {
    Some(match t {
        SchemaType::Boolean => Value::Boolean(matches!(*node, Node::Bool(true))),
        SchemaType::Int8 => Value::Int8(node.int_value() as i8),
        SchemaType::Int16 => Value::Int16(node.int_value() as i16),
        SchemaType::Int32 => Value::Int32(node.int_value()),
        SchemaType::Int64 => Value::Int64(node.long_value()),
        SchemaType::Float32 => Value::Float32(node.float_value()),
        SchemaType::Float64 => Value::Float64(node.double_value()),
        SchemaType::String => match node {
            Cow::Owned(Node::Str(s)) => Value::String(s),
            Cow::Borrowed(Node::Str(s)) => Value::String(s.clone()),
            _ => Value::Null,
        },
        SchemaType::Bytes => match &*node {
            Node::Str(s) => Value::Bytes(decode_base64(s)?),
            _ => Value::Null,
        },
        SchemaType::Array | SchemaType::Map | SchemaType::Struct => return None,
    })
}
