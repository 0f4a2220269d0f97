package mqtt

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// CertPool reads a PEM file of a broker's certificate authority. A file
// that cannot be read, or that holds no PEM certificate, is an error that
// names it.
func CertPool(caFile string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("mqtt: CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("mqtt: CA file %s holds no PEM certificate", caFile)
	}
	return pool, nil
}

// TLSConfig is the TLS configuration of a client of a broker (ssl://,
// wss://) whose authority is caFile ("" for the system's), or that skips
// checking the broker's certificate (testing only). It is nil when neither
// is set: the client then uses the system's authorities. Every MQTT client
// of a table uses it, so that they all reach the same broker.
func TLSConfig(caFile string, insecureSkipVerify bool) (*tls.Config, error) {
	if caFile == "" && !insecureSkipVerify {
		return nil, nil
	}
	tc := &tls.Config{InsecureSkipVerify: insecureSkipVerify} //nolint:gosec // an explicit setting
	if caFile != "" {
		pool, err := CertPool(caFile)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = pool
	}
	return tc, nil
}
