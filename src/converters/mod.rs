//! TEMP stub
use connect_api::{Converter, HeaderConverter};
#[derive(Clone, Copy)]
pub struct ConverterDesc { pub class_name: &'static str, pub new_converter: Option<fn() -> Box<dyn Converter>>, pub new_header_converter: Option<fn() -> Box<dyn HeaderConverter>> }
pub fn builtin_converters() -> Vec<ConverterDesc> { vec![] }
