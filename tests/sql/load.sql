-- The table the workloads read: a million rows made by the sequence engine
-- (a few seconds). Run in the `demo` database as `loader`.
DROP TABLE IF EXISTS items;
CREATE TABLE items (
	id INT NOT NULL PRIMARY KEY,
	k INT NOT NULL,
	s VARCHAR(64) NOT NULL
) ENGINE=InnoDB;
INSERT INTO items SELECT seq, (seq * 7919) % 1000003, MD5(seq) FROM seq_1_to_1000000;
