-- Nothing reads or writes the live table while the fresh copy catches up and takes its place.
LOCK TABLE {live} IN ACCESS EXCLUSIVE MODE
