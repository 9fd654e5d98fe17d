// Loaded with --import into the gateway the memory benchmark starts with a Zigbee radio: the
// radio process inherits the gateway's node flags (lib/radio/zigbee-process.ts), and there,
// only there, herdsman's adapter factory gets the fake coordinator of the tests
// (tests/helpers/zigbee-fake-child.ts, driven over ZIGBEE_FAKE_CONTROL), so herdsman's real
// Controller comes up without a stick. The gateway process itself loads nothing more. The
// benchmark preloads it compiled to JavaScript (tests/helpers/compiled-fake-coordinator.ts),
// as the radio process it measures runs: under --lite-mode no .ts module can load.
if (/zigbee-child\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) await import('../tests/helpers/zigbee-fake-child.ts')
