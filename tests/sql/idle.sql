-- An idle session that holds some memory of several kinds (a user variable,
-- a MEMORY temporary table, a prepared statement): a steady target with
-- about ten events for the tests. The caller then runs SELECT SLEEP(...).
SET @mmp_blob = REPEAT('x', 100000);
CREATE TEMPORARY TABLE mmp_tmp (a INT, b VARCHAR(200)) ENGINE=MEMORY;
INSERT INTO mmp_tmp SELECT seq, REPEAT('y', 200) FROM seq_1_to_1000;
PREPARE mmp_stmt FROM 'SELECT ? + 1';
