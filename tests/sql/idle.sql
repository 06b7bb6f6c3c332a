-- An idle session that holds some memory of several kinds (a user variable,
-- a MEMORY temporary table, a prepared statement): a steady target with
-- about ten events for the tests. The caller then runs SELECT SLEEP(...).
SET @mmp_blob = REPEAT('x', 100000);
CREATE TEMPORARY TABLE mmp_tmp (a INT, b VARCHAR(200)) ENGINE=MEMORY;
-- A recursive WITH, which MariaDB and MySQL share (MySQL's default
-- cte_max_recursion_depth is 1000).
INSERT INTO mmp_tmp SELECT n, REPEAT('y', 200) FROM (
	WITH RECURSIVE s (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 1000)
	SELECT n FROM s) AS numbers;
PREPARE mmp_stmt FROM 'SELECT ? + 1';
