package server

// WithRecover is withRecover, for the tests of package server_test.
var WithRecover = withRecover

// WithAccessLog is withAccessLog, for the tests of package server_test.
var WithAccessLog = withAccessLog
