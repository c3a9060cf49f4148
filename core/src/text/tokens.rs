//! A decoded message → the list of tokens the model counts.
