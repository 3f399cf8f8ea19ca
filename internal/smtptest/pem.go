package smtptest

import "encoding/pem"

// CertPEM is the server's certificate as PEM, for a process that is to
// trust it as its system's roots do (SSL_CERT_FILE).
func (s *Server) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.cert.Certificate[0]})
}
