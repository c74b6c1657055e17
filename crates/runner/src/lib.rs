//! Runner (placeholder).
