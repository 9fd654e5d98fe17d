// The one module that imports zigbee-herdsman. Its code (serial bindings, module-global
// state) must only ever load inside the radio process, so only lib/radio/zigbee.ts takes
// values from here; the other radio files take types only
// (tests/lib/radio/herdsman-import.test.ts keeps both rules).
import type { Controller } from 'zigbee-herdsman'

export { Controller, setLogger, Zdo } from 'zigbee-herdsman'
export { findAllDevices } from 'zigbee-herdsman/dist/adapter/adapterDiscovery.js'

/** A device in herdsman's database (herdsman does not export the class as a type). */
export type ZigbeeDevice = ReturnType<Controller['getDevices']>[number]
