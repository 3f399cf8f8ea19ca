//go:build !unix

package main

// privateFiles has nothing to do where there is no umask.
func privateFiles() {}
