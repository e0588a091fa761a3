-- A fresh copy of a projection table's shape (columns, defaults, checks; no rows and no
-- secondary indexes, which are built after the COPY), with its primary key.
CREATE TABLE {fresh} (LIKE {live} INCLUDING ALL EXCLUDING INDEXES);
ALTER TABLE {fresh} ADD PRIMARY KEY ({key});
