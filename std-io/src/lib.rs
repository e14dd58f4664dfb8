//! modelgate-io
