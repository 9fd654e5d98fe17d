// Radio upkeep on herdsman's Controller (docs/radio.md "Upkeep"): the devices and how their
// interview went, an interview run again, a device removed, and the network map from each
// router's neighbour table (ZDO Mgmt_Lqi_req, herdsman's Device.lqi()). Types of herdsman
// only; zigbee.ts hands the started controller in.
import type { Controller } from './herdsman.ts'
import type { Clock, TimerHandle } from '../kernel/clock.ts'
import type { Logger } from '../kernel/log.ts'
import { deviceRole, type ZigbeeDevice } from './zigbee-device-kinds.ts'
import { addressToIeee, ieeeToAddress } from './zigbee-profile.ts'
import { deviceNotFound, type InterviewResult, type InterviewStatus, type MapLink, type MapNode, type NetworkMap, type RadioDevice } from './upkeep.ts'
import { byCodeUnits } from '../kernel/text-order.ts'

/** How long one router may take to give its whole neighbour table. */
export const neighbourTableTimeoutMs = 15_000

const interviewStatuses: Record<string, InterviewStatus> = {
  PENDING: 'pending',
  IN_PROGRESS: 'in progress',
  SUCCESSFUL: 'successful',
  FAILED: 'failed',
}

const relationships: MapLink['relationship'][] = ['parent', 'child', 'sibling', 'none', 'previous child']

function deviceType(device: ZigbeeDevice): RadioDevice['type'] {
  return device.type === 'Router' || device.type === 'EndDevice' || device.type === 'GreenPower' ? device.type : 'Unknown'
}

export function describeDevice(device: ZigbeeDevice): RadioDevice {
  return {
    address: ieeeToAddress(device.ieeeAddr),
    networkAddress: device.networkAddress,
    type: deviceType(device),
    role: deviceRole(device) ?? null,
    model: device.modelID ?? null,
    manufacturer: device.manufacturerName ?? null,
    interview: interviewStatuses[device.interviewState] ?? 'pending',
    lastSeen: device.lastSeen ?? null,
    linkQuality: device.linkquality ?? null,
  }
}

/** Every device herdsman knows, the coordinator aside: failed interviews first, then by address. */
export function listDevices(controller: Controller): RadioDevice[] {
  const order = (device: RadioDevice) => (device.interview === 'failed' ? 0 : device.interview === 'successful' ? 2 : 1)
  return controller
    .getDevices()
    .filter((device) => device.type !== 'Coordinator')
    .map(describeDevice)
    .sort((a, b) => order(a) - order(b) || byCodeUnits(a.address, b.address))
}

export function findDevice(controller: Controller, address: string): ZigbeeDevice {
  const device = controller.getDeviceByIeeeAddr(addressToIeee(address))
  if (!device || device.type === 'Coordinator') throw deviceNotFound(address)
  return device
}

/**
 * Runs herdsman's interview again; `interviewed` is told how it went (the device is then
 * treated as after a join: configured, or removed when not of this profile).
 */
export async function interviewAgain(
  device: ZigbeeDevice,
  log: Logger,
  interviewed: (status: 'successful' | 'failed', device: ZigbeeDevice) => void,
): Promise<InterviewResult> {
  const address = ieeeToAddress(device.ieeeAddr)
  log.info({ address }, 'zigbee interview started by request')
  try {
    await device.interview(true)
  } catch (error) {
    const message = (error as Error).message
    interviewed('failed', device)
    return { device: describeDevice(device), error: message }
  }
  interviewed('successful', device)
  return { device: describeDevice(device), error: null }
}

/**
 * Asks the device to leave (ZDO Leave without rejoin) and forgets it. One that does not
 * acknowledge is forgotten only with `force` (a tracker asleep, a device thrown away); left
 * false then says it was not told.
 */
export async function removeDevice(device: ZigbeeDevice, force: boolean, log: Logger): Promise<{ left: boolean }> {
  const address = ieeeToAddress(device.ieeeAddr)
  try {
    await device.removeFromNetwork()
    log.info({ address }, 'zigbee device removed from the network by request')
    return { left: true }
  } catch (error) {
    if (!force) {
      throw new Error(
        `${address} did not acknowledge the leave request (${(error as Error).message}); it may be asleep or gone: wake it, or remove it with force to forget it anyway`,
        { cause: error },
      )
    }
    device.removeFromDatabase()
    log.warn({ address, err: error }, 'zigbee device forgotten by request without acknowledging the leave request')
    return { left: false }
  }
}

interface NeighbourEntry {
  eui64: string
  nwkAddress: number
  deviceType: number
  relationship: number
  lqi: number
  depth: number
}

/**
 * The coordinator's and every router's neighbour tables, asked one router at a time (a
 * small network's routers are few; herdsman queues ZDO requests per adapter anyway), each
 * bounded in time. End devices do not keep neighbour tables: they appear as the children
 * their parents list.
 */
export async function networkMap(controller: Controller, clock: Clock): Promise<NetworkMap> {
  const nodes = new Map<string, MapNode>()
  const links: MapLink[] = []
  const unanswered: NetworkMap['unanswered'] = []
  const devices = controller.getDevices()
  for (const device of devices) {
    const address = ieeeToAddress(device.ieeeAddr)
    nodes.set(address, {
      address,
      networkAddress: device.networkAddress,
      type: device.type === 'Coordinator' ? 'Coordinator' : deviceType(device),
      role: deviceRole(device) ?? null,
      model: device.modelID ?? null,
    })
  }
  for (const device of devices) {
    if (device.type !== 'Coordinator' && device.type !== 'Router') continue
    const from = ieeeToAddress(device.ieeeAddr)
    try {
      const table = (await bounded(device.lqi() as Promise<unknown>, neighbourTableTimeoutMs, clock)) as NeighbourEntry[]
      for (const entry of table) {
        const to = /^0x[0-9a-f]{16}$/i.test(entry.eui64) && !/^0x(f{16}|0{16})$/i.test(entry.eui64) ? ieeeToAddress(entry.eui64) : null
        if (!to) continue
        if (!nodes.has(to)) {
          const type = entry.deviceType === 0 ? 'Coordinator' : entry.deviceType === 1 ? 'Router' : entry.deviceType === 2 ? 'EndDevice' : 'Unknown'
          // Heard by a router but not in the gateway's list: shown, since it matters where it is.
          nodes.set(to, { address: to, networkAddress: entry.nwkAddress, type, role: null, model: null })
        }
        links.push({ from, to, linkQuality: entry.lqi, relationship: relationships[entry.relationship] ?? 'none', depth: entry.depth })
      }
    } catch (error) {
      unanswered.push({ address: from, error: (error as Error).message })
    }
  }
  return { at: clock.now(), nodes: [...nodes.values()], links, unanswered }
}

function bounded<T>(work: Promise<T>, ms: number, clock: Clock): Promise<T> {
  let timer: TimerHandle | undefined
  const expiry = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => reject(new Error(`no neighbour table within ${ms / 1000} s`)), ms)
  })
  work.catch(() => {})
  return Promise.race([work, expiry]).finally(() => clock.clearTimeout(timer))
}
