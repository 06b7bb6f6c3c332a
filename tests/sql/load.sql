-- The table the workloads read: a million rows, numbered by six digits of
-- a ten-row table (MariaDB's sequence engine is not in MySQL), in a few
-- seconds. s is 32 hex digits, as MD5 wrote them before MySQL 9 dropped it.
-- Run in the `demo` database as `loader`.
DROP TABLE IF EXISTS items;
CREATE TABLE items (
	id INT NOT NULL PRIMARY KEY,
	k INT NOT NULL,
	s VARCHAR(64) NOT NULL
) ENGINE=InnoDB;
DROP TABLE IF EXISTS digits;
CREATE TABLE digits (d INT NOT NULL);
INSERT INTO digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
INSERT INTO items SELECT n, (n * 7919) % 1000003, LEFT(SHA2(n, 256), 32) FROM (
	SELECT 1 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d +
		100000 * g.d AS n
	FROM digits a, digits b, digits c, digits e, digits f, digits g) AS numbers;
DROP TABLE digits;
