// An in-process stand-in for a Zigbee coordinator. installFakeAdapter() replaces herdsman's
// adapter factory (Adapter.create), so the REAL zigbee-herdsman Controller runs against it:
// joins, interviews (ZDO descriptors, genBasic reads), frame parsing, endpoint commands.
// Devices are described by a small table; frames they "send" are real ZCL frames.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Zcl, Zdo } from 'zigbee-herdsman'
import { Adapter } from 'zigbee-herdsman/dist/adapter/index.js'
import { fromUnifiedBackup } from 'zigbee-herdsman/dist/utils/backup.js'
import type { Backup } from 'zigbee-herdsman/dist/models/backup.js'

export interface FakeDevice {
  ieee: string
  nwk: number
  type: 'EndDevice' | 'Router'
  inClusters: number[]
  basic: Record<string, string | number>
  manufacturerCode?: number
}

export interface SentFrame {
  ieee: string
  cluster: string
  command: string
  payload: unknown
}

export const coordinatorIeee = '0x00124b0001020304'

/**
 * The stack family a fake stick behaves as for coordinator backups, as herdsman 10.9.5's
 * real adapters do (lib/radio/zigbee-takeover.ts): zstack and deconz restore any backup (and
 * take the old coordinator's IEEE address), ember only an EmberZNet one (keeping its own
 * address; any other backup fails every start), zigate and zboss keep none.
 */
export type FakeFamily = 'zstack' | 'ember' | 'deconz' | 'zigate' | 'zboss'

/** What a stick keeps in its NVRAM of the network it formed or restored. */
export interface FakeNetworkMemory {
  panId: number
  extendedPanId: number[]
  networkKey: number[]
  frameCounter: number
}

/** One entry of a router's neighbour table. */
export interface FakeNeighbour {
  ieee: string
  nwk: number
  /** 0 coordinator, 1 router, 2 end device. */
  deviceType: number
  lqi: number
  /** 0 parent, 1 child, 2 sibling, 3 none, 4 previous child. */
  relationship: number
  depth: number
}

interface FakeNetworkOptions {
  panID: number
  extendedPanID?: number[]
  networkKey?: number[]
  channelList: number[]
}

const basicAttributeTypes: Record<string, number> = {
  modelId: Zcl.DataType.CHAR_STR,
  manufacturerName: Zcl.DataType.CHAR_STR,
  powerSource: Zcl.DataType.ENUM8,
  zclVersion: Zcl.DataType.UINT8,
  appVersion: Zcl.DataType.UINT8,
  stackVersion: Zcl.DataType.UINT8,
  hwVersion: Zcl.DataType.UINT8,
  dateCode: Zcl.DataType.CHAR_STR,
  swBuildId: Zcl.DataType.CHAR_STR,
}

export class FakeAdapter extends Adapter {
  /** The coordinator's own memory of its network: it survives reconnections. */
  devices = new Map<number, FakeDevice>()
  /** A coordinator forms its network once ('reset') and resumes it afterwards. */
  startResult: 'reset' | 'resumed' = 'reset'
  readonly sent: SentFrame[] = []
  readonly permitJoins: number[] = []
  /** When set, sends to devices reject with this message (a tracker out of reach). */
  failSends: string | undefined
  /** Every ZCL frame sent to a device, whole (headers included). */
  readonly frames: Zcl.Frame[] = []
  /** The options herdsman passed with each ZCL send to a device, in order. */
  readonly sendOptions: { timeout: number; disableRecovery: boolean }[] = []
  /** The status devices put in their Default Responses (a tracker may refuse). */
  answerStatus: number = Zcl.Status.SUCCESS
  /** When set, ZCL sends to devices never complete (a stuck adapter). */
  hangSends = false
  /** Bind requests devices accepted: `ieee cluster -> target ieee/endpoint`. */
  readonly binds: string[] = []
  /** When set, devices refuse bind requests (asleep, or a full binding table). */
  failBinds = false
  /** Devices asked to leave the network. */
  readonly leaves: string[] = []
  /** Devices (by IEEE) that do not answer anything: switched off, or asleep. */
  readonly unreachable = new Set<string>()
  /** Devices (by IEEE) whose node descriptor never comes: their interview fails. */
  readonly interviewFailing = new Set<string>()
  stopped = false
  /** The channel the coordinator's network is on (kept in its NVRAM across restarts). */
  channel: number
  /** The coordinator's own endpoints (a reset Z-Stack coordinator forgets them). */
  coordinatorEndpoints = [1, 2]
  /**
   * Neighbour tables (ZDO Mgmt_Lqi_rsp) by network address (0: the coordinator); a router
   * without an entry has an empty table.
   */
  readonly neighbours = new Map<number, FakeNeighbour[]>()
  /** Backup behaviour of a real adapter family; unset: the older fake (no backups, startResult as set). */
  family: FakeFamily | undefined
  /** The network in the stick's NVRAM (family set): null for a blank stick. */
  memory: FakeNetworkMemory | null = null
  /** This stick's IEEE address (a restoring zstack or deconz stick takes the backup's). */
  ieee = coordinatorIeee
  /** How the last start went (family set): what herdsman was told. */
  lastStart: 'resumed' | 'restored' | 'reset' | undefined
  readonly #network: FakeNetworkOptions
  readonly #backupPath: string
  /** When set, the coordinator no longer answers its own ZDO requests (a hung stick). */
  hangCoordinator = false
  /** When set, stopping never completes (a stick that no longer answers as herdsman stops it). */
  hangStop = false
  /** When set, the link breaks while herdsman's start() is still running. */
  disconnectDuringStart = false
  /** The channel herdsman was configured with for this start. */
  readonly configuredChannel: number
  /** Channel-change broadcasts (Mgmt_NWK_Update_req) sent to the network: the new channels. */
  channelBroadcasts: number[] = []
  /** deCONZ-like: the stick moves to the configured channel by itself while starting. */
  movesAloneOnStart = false
  /** The next channel-change broadcast fails (the adapter refuses it). */
  failNextBroadcast = false
  #tsn = 1

  constructor(network: FakeNetworkOptions, serialPort: object, backupPath: string, adapterOptions: object, family?: FakeFamily) {
    super(network as never, serialPort as never, backupPath, adapterOptions as never)
    this.channel = network.channelList[0]
    this.configuredChannel = network.channelList[0]
    this.#network = network
    this.#backupPath = backupPath
    this.family = family
  }

  /** Adds a device and announces its join, as a coordinator does. */
  join(device: FakeDevice): void {
    this.devices.set(device.nwk, device)
    this.emit('deviceJoined', { networkAddress: device.nwk, ieeeAddr: device.ieee })
  }

  /** A device sends a cluster-specific command (server → client) to the gateway. */
  sendCommand(device: FakeDevice, cluster: string, command: string, payload: Record<string, unknown>, customClusters = {}): void {
    const manufacturerCode = cluster.startsWith('trk') ? (device.manufacturerCode ?? 0xfff1) : undefined
    const frame = Zcl.Frame.create(
      Zcl.FrameType.SPECIFIC,
      Zcl.Direction.SERVER_TO_CLIENT,
      true,
      manufacturerCode,
      this.#tsn++,
      command,
      cluster,
      payload,
      customClusters,
    )
    this.#deliver(device, frame)
  }

  /** A device reports attributes. */
  report(device: FakeDevice, cluster: string, attributes: { attrId: number; dataType: number; attrData: unknown }[], customClusters = {}): void {
    const manufacturerCode = cluster.startsWith('trk') ? (device.manufacturerCode ?? 0xfff1) : undefined
    const frame = Zcl.Frame.create(
      Zcl.FrameType.GLOBAL,
      Zcl.Direction.SERVER_TO_CLIENT,
      true,
      manufacturerCode,
      this.#tsn++,
      'report',
      cluster,
      attributes,
      customClusters,
    )
    this.#deliver(device, frame)
  }

  /** A device leaves the network by itself (reset, or told to by someone else). */
  leave(device: FakeDevice): void {
    this.devices.delete(device.nwk)
    this.emit('deviceLeave', { networkAddress: device.nwk, ieeeAddr: device.ieee })
  }

  /** The serial link breaks (USB stick pulled). */
  unplug(): void {
    this.emit('disconnected')
  }

  #deliver(device: FakeDevice, frame: Zcl.Frame): void {
    this.emit('zclPayload', {
      clusterID: frame.cluster.ID,
      header: frame.header,
      data: frame.toBuffer(),
      address: device.nwk,
      endpoint: 1,
      linkquality: 180,
      groupID: 0,
      wasBroadcast: false,
      destinationEndpoint: 1,
    })
  }

  async start() {
    if (this.movesAloneOnStart) this.channel = this.configuredChannel
    if (this.family === undefined) return this.startResult
    this.lastStart = this.#startWithMemory()
    return this.lastStart
  }

  /** As the real adapters decide: resume the network in NVRAM, else restore the backup, else form anew. */
  #startWithMemory(): 'resumed' | 'restored' | 'reset' {
    const config = this.#network
    const memory = this.memory
    const same = (a: number[] | undefined, b: number[] | undefined) => Buffer.from(a ?? []).equals(Buffer.from(b ?? []))
    if (memory && memory.panId === config.panID && same(memory.extendedPanId, config.extendedPanID) && same(memory.networkKey, config.networkKey))
      return 'resumed'
    const backup = this.#storedBackup()
    if (
      backup &&
      backup.networkOptions.panId === config.panID &&
      backup.networkOptions.extendedPanId.equals(Buffer.from(config.extendedPanID ?? [])) &&
      backup.networkOptions.networkKey.equals(Buffer.from(config.networkKey ?? [])) &&
      config.channelList.includes(backup.logicalChannel)
    ) {
      this.memory = {
        panId: backup.networkOptions.panId,
        extendedPanId: [...backup.networkOptions.extendedPanId],
        networkKey: [...backup.networkOptions.networkKey],
        frameCounter: backup.networkKeyInfo.frameCounter + 2500,
      }
      this.channel = backup.logicalChannel
      // Z-Stack and deCONZ write the old coordinator's address into the new stick; EmberZNet cannot.
      if (this.family !== 'ember') this.ieee = `0x${backup.coordinatorIeeeAddress.toString('hex')}`
      return 'restored'
    }
    this.memory = { panId: config.panID, extendedPanId: [...(config.extendedPanID ?? [])], networkKey: [...(config.networkKey ?? [])], frameCounter: 0 }
    this.channel = config.channelList[0]
    // A new network: the devices of the old one are not in it.
    this.devices = new Map()
    return 'reset'
  }

  /** The coordinator backup as the family's adapter reads it (throwing as it does on one it refuses). */
  #storedBackup(): Backup | undefined {
    if (this.family === 'zigate' || this.family === 'zboss' || !existsSync(this.#backupPath)) return undefined
    const data = JSON.parse(readFileSync(this.#backupPath, 'utf8'))
    if (this.family === 'ember' && !data.stack_specific?.ezsp) throw new Error('[BACKUP] Current backup file is not for EmberZNet stack.')
    return fromUnifiedBackup(data)
  }
  async stop() {
    this.stopped = true
    if (this.hangStop) await new Promise<never>(() => {})
  }
  async getCoordinatorIEEE() {
    if (this.disconnectDuringStart) {
      this.disconnectDuringStart = false
      this.emit('disconnected')
      // herdsman's disconnect handling finishes before its start() goes on.
      await new Promise((resolve) => setImmediate(resolve))
    }
    return this.ieee
  }
  async getCoordinatorVersion(): Promise<{ type: string; meta: Record<string, string | number> }> {
    const types: Record<FakeFamily, string> = { zstack: 'zStack3x0', ember: 'EmberZNet', deconz: 'ConBee2/RaspBee2', zigate: 'zigate', zboss: 'zboss' }
    return this.family ? { type: types[this.family], meta: { revision: `fake-${this.family}-1.2.3` } } : { type: 'fake', meta: {} }
  }
  async reset() {}
  async supportsBackup() {
    return this.family === 'zstack' || this.family === 'ember' || this.family === 'deconz'
  }
  async backup(): Promise<Backup> {
    if (!(await this.supportsBackup()) || !this.memory) throw new Error('fake adapter keeps no backup')
    const memory = this.memory
    return {
      networkOptions: {
        panId: memory.panId,
        extendedPanId: Buffer.from(memory.extendedPanId),
        channelList: [this.channel],
        networkKey: Buffer.from(memory.networkKey),
        networkKeyDistribute: false,
      },
      logicalChannel: this.channel,
      networkKeyInfo: { sequenceNumber: 0, frameCounter: memory.frameCounter },
      securityLevel: 5,
      networkUpdateId: 0,
      coordinatorIeeeAddress: Buffer.from(this.ieee.slice(2), 'hex'),
      devices: [...this.devices.values()].map((device) => ({
        networkAddress: device.nwk,
        ieeeAddress: Buffer.from(device.ieee.slice(2), 'hex'),
        isDirectChild: true,
      })),
      ...(this.family === 'zstack' ? { znp: { version: 1 } } : {}),
      ...(this.family === 'ember' ? { ezsp: { version: 13, hashed_tclk: Buffer.alloc(16, 7) } } : {}),
    } as Backup
  }
  async getNetworkParameters() {
    if (this.memory) {
      const extendedPanID = `0x${Buffer.from(this.memory.extendedPanId).toString('hex')}`
      return { panID: this.memory.panId, extendedPanID, channel: this.channel, nwkUpdateID: 0 }
    }
    return { panID: 0x1a62, extendedPanID: '0xdddddddddddddddd', channel: this.channel, nwkUpdateID: 0 }
  }
  async addInstallCode() {}
  waitFor() {
    return { promise: new Promise<never>(() => {}), cancel: () => {} }
  }
  async permitJoin(seconds: number) {
    this.permitJoins.push(seconds)
  }

  // Herdsman's overloads are narrower than a test double needs to be.
  async sendZdo(ieee: string, nwk: number, clusterId: number, payload: Buffer, disableResponse: boolean): Promise<any> {
    if (clusterId === Zdo.ClusterId.NWK_UPDATE_REQUEST) {
      if (this.failNextBroadcast) {
        this.failNextBroadcast = false
        throw new Error('broadcast refused')
      }
      // The coordinator follows its own broadcast, as the network does.
      this.channel = Math.log2(payload.readUInt32LE(1))
      this.channelBroadcasts.push(this.channel)
    }
    if (disableResponse) return undefined
    const device = this.devices.get(nwk)
    if (clusterId === Zdo.ClusterId.ACTIVE_ENDPOINTS_REQUEST && nwk === 0) {
      if (this.hangCoordinator) return new Promise<never>(() => {})
      return [Zdo.Status.SUCCESS, { nwkAddress: 0, endpointList: [...this.coordinatorEndpoints] }]
    }
    if (this.unreachable.has(ieee)) throw new Error(`no answer from ${ieee}`)
    if (clusterId === Zdo.ClusterId.LQI_TABLE_REQUEST) {
      const table = this.neighbours.get(nwk) ?? []
      const start = payload[1] ?? 0
      // Two entries a response, as real stacks split long tables.
      const entryList = table.slice(start, start + 2).map((entry) => ({
        extendedPanId: [0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd],
        eui64: entry.ieee,
        nwkAddress: entry.nwk,
        deviceType: entry.deviceType,
        rxOnWhenIdle: entry.deviceType === 2 ? 0 : 1,
        relationship: entry.relationship,
        reserved1: 0,
        permitJoining: 0,
        reserved2: 0,
        depth: entry.depth,
        lqi: entry.lqi,
      }))
      return [Zdo.Status.SUCCESS, { neighborTableEntries: table.length, startIndex: start, entryList }]
    }
    if (clusterId === Zdo.ClusterId.BIND_REQUEST) {
      if (this.failBinds || !device) return [Zdo.Status.TIMEOUT, undefined]
      this.binds.push(describeBind(payload))
      return [Zdo.Status.SUCCESS, undefined]
    }
    if (clusterId === Zdo.ClusterId.LEAVE_REQUEST) {
      this.leaves.push(ieee)
      this.devices.delete(nwk)
      return [Zdo.Status.SUCCESS, undefined]
    }
    if (clusterId === Zdo.ClusterId.ACTIVE_ENDPOINTS_REQUEST) {
      return [Zdo.Status.SUCCESS, { nwkAddress: nwk, endpointList: [1] }]
    }
    if (clusterId === Zdo.ClusterId.SIMPLE_DESCRIPTOR_REQUEST) {
      return [
        Zdo.Status.SUCCESS,
        {
          nwkAddress: nwk,
          length: 0,
          endpoint: 1,
          profileId: 0x0104,
          deviceId: device ? 0x0402 : 0x0005,
          deviceVersion: 1,
          inClusterList: device?.inClusters ?? [0x0000],
          outClusterList: [],
        },
      ]
    }
    if (clusterId === Zdo.ClusterId.NODE_DESCRIPTOR_REQUEST && device && !this.interviewFailing.has(ieee)) {
      return [
        Zdo.Status.SUCCESS,
        {
          nwkAddress: nwk,
          logicalType: device.type === 'Router' ? 1 : 2,
          fragmentationSupported: false,
          apsFlags: 0,
          frequencyBand: 8,
          capabilities: {},
          manufacturerCode: device.manufacturerCode ?? 0xfff1,
          maxBufSize: 80,
          maxIncTxSize: 80,
          serverMask: { stackComplianceRevision: 22 },
          maxOutTxSize: 80,
          deprecated1: 0,
          tlvs: [],
        },
      ]
    }
    return [Zdo.Status.NOT_SUPPORTED, undefined]
  }

  async sendZclFrameToEndpoint(
    ieee: string,
    nwk: number,
    endpoint: number,
    frame: Zcl.Frame,
    timeout: number,
    disableResponse: boolean,
    disableRecovery: boolean,
  ): Promise<any> {
    this.sendOptions.push({ timeout, disableRecovery })
    if (this.failSends) throw new Error(this.failSends)
    if (this.unreachable.has(ieee)) throw new Error(`no answer from ${ieee}`)
    const device = this.devices.get(nwk)
    this.sent.push({ ieee, cluster: frame.cluster.name, command: frame.command.name, payload: frame.payload })
    this.frames.push(frame)
    if (this.hangSends) return new Promise<never>(() => {})
    if (disableResponse) return undefined
    const header = frame.header
    if (frame.command.name === 'read' && frame.cluster.name === 'genBasic') {
      const records = (frame.payload as { attrId: number }[]).map(({ attrId }) => {
        const name = Object.values(Zcl.Clusters.genBasic.attributes).find((a) => a.ID === attrId)?.name
        const value = name !== undefined ? device?.basic[name] : undefined
        return value === undefined || name === undefined
          ? { attrId, status: Zcl.Status.UNSUPPORTED_ATTRIBUTE }
          : { attrId, status: Zcl.Status.SUCCESS, dataType: basicAttributeTypes[name], attrData: value }
      })
      const response = Zcl.Frame.create(
        Zcl.FrameType.GLOBAL,
        Zcl.Direction.SERVER_TO_CLIENT,
        true,
        header.manufacturerCode,
        header.transactionSequenceNumber,
        'readRsp',
        frame.cluster.ID,
        records,
        {},
      )
      return this.#payload(nwk, endpoint, response)
    }
    if (frame.command.name === 'configReport') {
      const records = (frame.payload as { attrId: number }[]).map(({ attrId }) => ({ status: this.answerStatus, direction: 0, attrId }))
      const response = Zcl.Frame.create(
        Zcl.FrameType.GLOBAL,
        Zcl.Direction.SERVER_TO_CLIENT,
        true,
        header.manufacturerCode,
        header.transactionSequenceNumber,
        'configReportRsp',
        frame.cluster.ID,
        records,
        {},
      )
      return this.#payload(nwk, endpoint, response)
    }
    if (header.frameControl.disableDefaultResponse) return undefined
    const response = Zcl.Frame.create(
      Zcl.FrameType.GLOBAL,
      Zcl.Direction.SERVER_TO_CLIENT,
      true,
      header.manufacturerCode,
      header.transactionSequenceNumber,
      'defaultRsp',
      frame.cluster.ID,
      { cmdId: header.commandIdentifier, statusCode: this.answerStatus },
      {},
    )
    return this.#payload(nwk, endpoint, response)
  }

  #payload(nwk: number, endpoint: number, frame: Zcl.Frame) {
    return {
      clusterID: frame.cluster.ID,
      header: frame.header,
      data: frame.toBuffer(),
      address: nwk,
      endpoint,
      linkquality: 180,
      groupID: 0,
      wasBroadcast: false,
      destinationEndpoint: 1,
    }
  }

  async sendZclFrameToGroup() {}
  async sendZclFrameToAll() {}
  async setChannelInterPAN() {}
  async sendZclFrameInterPANToIeeeAddr() {}
  async sendZclFrameInterPANBroadcast(): Promise<any> {
    return undefined
  }
  async restoreChannelInterPAN() {}
}

/** A ZDO bind request's payload (after the transaction sequence number) in a few words. */
function describeBind(payload: Buffer): string {
  const ieee = (offset: number) =>
    `0x${Buffer.from(payload.subarray(offset, offset + 8))
      .reverse()
      .toString('hex')}`
  const cluster = payload.readUInt16LE(10)
  return `${ieee(1)} 0x${cluster.toString(16).padStart(4, '0')} -> ${ieee(13)}/${payload[21]}`
}

/**
 * Makes herdsman's own waits (utils/wait.js, e.g. the 12 s after a channel change broadcast)
 * resolve at once, recording what was asked; restore() puts the real one back.
 */
export function instantHerdsmanWaits(): { waits: number[]; restore(): void } {
  const module = createRequire(import.meta.url)('zigbee-herdsman/dist/utils/wait.js') as { wait: (ms: number) => Promise<void> }
  const original = module.wait
  const waits: number[] = []
  module.wait = async (ms) => void waits.push(ms)
  return { waits, restore: () => void (module.wait = original) }
}

export interface FakeAdapterControl {
  /** The adapter of the latest start. */
  readonly current: FakeAdapter | undefined
  /** Every adapter created so far (one per connection attempt that got that far). */
  readonly created: FakeAdapter[]
  /** The next n starts fail as if the serial port were missing. */
  failNextStarts(n: number): void
  /** Called with each new adapter before herdsman starts it. */
  onCreate?: (adapter: FakeAdapter) => void
  /**
   * The stick is swapped: the next adapter is a blank stick of `family` with another IEEE
   * address (its NVRAM empty); the devices out in the network stay where they are.
   */
  replaceStick(stick: { family: FakeFamily; ieee: string }): void
  restore(): void
}

/**
 * Replaces herdsman's adapter factory; call restore() when the test ends. With `family`, the
 * sticks keep their network in NVRAM and write and restore coordinator backups as that
 * family's real adapter does.
 */
export function installFakeAdapter(options: { family?: FakeFamily } = {}): FakeAdapterControl {
  const original = Adapter.create
  const created: FakeAdapter[] = []
  let failures = 0
  let replacement: { family: FakeFamily; ieee: string } | undefined
  Adapter.create = async (network, serialPort, backupPath, adapterOptions) => {
    if (failures > 0) {
      failures--
      throw new Error('Error: No such file or directory, cannot open /dev/ttyUSB0')
    }
    const previous = created.at(-1)
    const stick = replacement
    replacement = undefined
    const adapter = new FakeAdapter(
      network as never,
      serialPort as never,
      backupPath,
      adapterOptions as never,
      stick?.family ?? previous?.family ?? options.family,
    )
    if (stick) {
      adapter.ieee = stick.ieee
      if (previous) adapter.devices = previous.devices
    } else if (previous) {
      adapter.memory = previous.memory
      adapter.ieee = previous.ieee
    }
    if (previous && !stick) {
      adapter.devices = previous.devices
      adapter.startResult = 'resumed'
      adapter.channel = previous.channel
      adapter.channelBroadcasts = previous.channelBroadcasts
      adapter.movesAloneOnStart = previous.movesAloneOnStart
      // What the devices do is the network's, not the adapter's.
      adapter.hangSends = previous.hangSends
      for (const ieee of previous.unreachable) adapter.unreachable.add(ieee)
    }
    created.push(adapter)
    control.onCreate?.(adapter)
    return adapter
  }
  const control: FakeAdapterControl = {
    get current() {
      return created.at(-1)
    },
    created,
    failNextStarts: (n) => void (failures = n),
    replaceStick: (stick) => void (replacement = stick),
    restore: () => void (Adapter.create = original),
  }
  return control
}
