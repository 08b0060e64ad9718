//! FileStreamSource and FileStreamSink connectors.
