// What the HTTPS server offers (issue 41). TLS 1.3 (its three suites, all AEAD), and for
// TLS 1.2 only ECDHE with AES-GCM or ChaCha20-Poly1305: the CBC suites Node also offers by
// default (ECDHE-*-AES*-SHA, -SHA256, -SHA384) are gone, as are static-RSA key exchanges
// (no forward secrecy). Every client the gateway knows (browsers of the last ten years,
// Node, curl, Android 5+, iOS 9+) speaks one of these. RSA suites stay for an installed
// certificate with an RSA key; the box's own key is P-256 (ECDSA).
export const tlsCipherSuites = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':')

/** The TLS options every secure context of the gateway gets (the server's, and each new certificate's). */
export const tlsProtocolOptions = { minVersion: 'TLSv1.2', ciphers: tlsCipherSuites, honorCipherOrder: true } as const
