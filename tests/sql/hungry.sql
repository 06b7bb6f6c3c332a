-- The memory-hungry statement: a GROUP BY whose groups (one per row) all go
-- into an in-memory (HEAP) temporary table. The engine sizes its blocks
-- from max_heap_table_size: with 256 MiB, the thread's memory/memory/HP_PTRS
-- climbs in 20 MiB steps (one every ~0.5 s) to about 200 MiB over ~4 s on
-- 1,000,000 rows. The SHA2 chain only spends CPU so that the growth lasts
-- long enough to watch.
-- @mmp_rows (default all: 1,000,000) makes it shorter for the tests.
SET SESSION tmp_table_size = 256 * 1024 * 1024,
	max_heap_table_size = 256 * 1024 * 1024;
SELECT COUNT(*) AS groups_, SUM(h) AS checksum FROM (
	SELECT s, COUNT(*) AS c,
		SUM(CRC32(SHA2(SHA2(SHA2(SHA2(SHA2(CONCAT(s, k), 512), 512), 512), 512), 512))) AS h
	FROM items
	WHERE id <= COALESCE(@mmp_rows, 1000000)
	GROUP BY s
) AS grouped;
