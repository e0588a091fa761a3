ALTER INDEX {index} RENAME TO {name}
