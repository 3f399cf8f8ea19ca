//go:build unix

package main

import "syscall"

// privateFiles makes every file and directory this process creates
// readable by its user alone (umask 077), as PostgreSQL does: the database,
// its journal files, backups, the master key. Files are also created with
// private modes one by one (store, secret); this covers what a library
// creates on its own.
func privateFiles() { syscall.Umask(0o077) }
