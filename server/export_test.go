package server

// WithRecover is withRecover, for the tests of package server_test.
var WithRecover = withRecover
