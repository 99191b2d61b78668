// Package sqllog writes and reads SQL performance logs in the schema
// Windows' relog and typeperf write (-f SQL -o SQL:DSN!logset): the tables
// DisplayToID (one row per log set), CounterDetails (one row per counter
// instance, shared by the log sets of a database) and CounterData (one row
// per value per sample), with relog's columns, so that reports and
// queries written for those tables work unchanged. SQL.md, beside this
// file, gives the schema in SQLite and PostgreSQL and the few things added
// to Windows' (two indexes).
//
// Values are stored raw (FirstValue, SecondValue and MultiCount as pairs
// of 32-bit ints) next to the formatted value, and the reader rebuilds
// each sample's PERF_DATA_BLOCKs from the raw values (package rawlog), so
// that a log read back computes exactly what was computed when it was
// written. CounterDateTime is the sample's time in UTC as the text
// "yyyy-mm-dd hh:mm:ss.fff" (23 characters, without the NUL relog adds as
// the 24th: PostgreSQL's text cannot hold a NUL; LEFT(CounterDateTime, 23)
// gives the same either way). The reader accepts the NUL.
//
// # Data sources
//
// A destination or source is "SQL:DSN!logset". The DSN is resolved by
// Options.Resolve, in this order:
//
//  1. the environment variable PERFC_SQL_DSN_<NAME> (NAME upper-cased,
//     other characters than A-Z and 0-9 made '_');
//  2. a line "NAME = value" of the data source file,
//     $XDG_CONFIG_HOME/perfc/sql.conf (~/.config/perfc/sql.conf when
//     XDG_CONFIG_HOME is not set), which must not be readable or writable
//     by group or others (it holds passwords);
//  3. the DSN itself as a SQLite file: a path ending in .db, .sqlite or
//     .sqlite3, or an existing SQLite file.
//
// A value is a PostgreSQL URL (postgres://user:password@host:port/db?...)
// or a SQLite file (sqlite:/path, or just the path). SQLite (modernc.org/sqlite,
// no cgo) is the embedded default; PostgreSQL (pgx) is the shared store
// that many hosts write into at once. Passwords are never shown in
// messages.
//
// # Writing
//
// SQL logs always append: Create opens an existing log set to add to it,
// or adds the log set (a DisplayToID row with a new GUID). Each sample is
// one transaction: its CounterData rows under the next RecordIndex, the
// CounterDetails rows of counters not seen before, and the log set's
// NumberOfRecords and LogStopTime. Writers of several processes or hosts
// may write into one database at once, into one log set or several.
package sqllog
