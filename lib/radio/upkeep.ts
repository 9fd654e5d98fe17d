// Radio upkeep for installers (docs/radio.md "Upkeep"): the devices herdsman knows and how
// their interview went, a new interview or a removal of one, and the network map (each
// router's neighbours and link quality). Only the Zigbee radio has them; RadioUpkeepService
// is what the HTTP functions and the control socket use, with the errors the API names.
import { DomainError } from '../kernel/errors.ts'
import { channelMoveRefusal } from './channel-move.ts'
import type { Radio } from './radio.ts'
import type { RadioDevice, NetworkMap, InterviewResult, RadioUpkeep } from './upkeep-types.ts'
export type { InterviewStatus, RadioDevice, MapNode, MapLink, NetworkMap, InterviewResult, RadioUpkeep } from './upkeep-types.ts'

/** The error name a missing device travels under (the radio process's IPC keeps names). */
export const deviceNotFoundName = 'DeviceNotFoundError'

export function deviceNotFound(address: string): Error {
  const error = new Error(`no zigbee device ${address}`)
  error.name = deviceNotFoundName
  return error
}

/** The radio's upkeep side, when it has one (the simulated restaurant has no Zigbee network). */
export function upkeepOf(radio: Radio): RadioUpkeep | undefined {
  const candidate = radio as Partial<RadioUpkeep>
  return typeof candidate.networkMap === 'function' && typeof candidate.devices === 'function' ? (radio as Radio & RadioUpkeep) : undefined
}

const addressPattern = /^[0-9a-f]{2}(:[0-9a-f]{2}){7}$/

/** A device address as people write it: 00:12:4b:..., 0x00124b..., or 16 hex digits. */
export function normalizeAddress(text: string): string | undefined {
  const hex = text.trim().toLowerCase().replace(/^0x/, '').replaceAll(/[:-]/g, '')
  if (!/^[0-9a-f]{16}$/.test(hex)) return undefined
  const address = hex.match(/../g)!.join(':')
  return addressPattern.test(address) ? address : undefined
}

export class RadioUpkeepService {
  readonly #radio: Radio

  constructor(radio: Radio) {
    this.#radio = radio
  }

  /** Why moving the network to another channel needs force now, or undefined. */
  async channelMoveRefusal(): Promise<string | undefined> {
    return channelMoveRefusal(this.#radio.kind, await this.#radio.info())
  }

  devices(): Promise<RadioDevice[]> {
    return this.#run((upkeep) => upkeep.devices())
  }

  interview(address: string): Promise<InterviewResult> {
    const normalized = this.#address(address)
    return this.#run((upkeep) => upkeep.interview(normalized))
  }

  remove(address: string, force: boolean): Promise<{ left: boolean }> {
    const normalized = this.#address(address)
    return this.#run((upkeep) => upkeep.remove(normalized, force))
  }

  networkMap(): Promise<NetworkMap> {
    return this.#run((upkeep) => upkeep.networkMap())
  }

  #address(text: string): string {
    const address = normalizeAddress(text)
    if (!address) throw new DomainError('RADIO_DEVICE_NOT_FOUND', `${text.slice(0, 40)} is not an EUI-64 address (00:12:4b:00:01:02:03:04)`)
    return address
  }

  async #run<T>(work: (upkeep: RadioUpkeep) => Promise<T>): Promise<T> {
    const upkeep = upkeepOf(this.#radio)
    // Like the simulator's routes on a Zigbee gateway, the API answers 404/-5: nothing failed,
    // this radio has no such thing (the detail is what `gateway radio ...` prints).
    if (!upkeep) throw new DomainError('ROUTE_NOT_FOUND', `the ${this.#radio.kind} radio has no Zigbee network`)
    try {
      return await work(upkeep)
    } catch (error) {
      if (error instanceof DomainError) throw error
      const cause = error as Error
      if (cause.name === deviceNotFoundName) throw new DomainError('RADIO_DEVICE_NOT_FOUND', cause.message.replace(/^no zigbee device /, ''))
      throw new DomainError('RADIO_UNAVAILABLE', cause.message)
    }
  }
}
