SELECT hookproof_archive_remove($1, $2::text[])
