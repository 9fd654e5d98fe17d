// The repeater pairing window as functions show it (runtime/workers/pairing.ts keeps it): data only.

export interface PairingState {
  open: boolean
  /** When the window closes (ms since epoch), or null when closed. */
  until: number | null
  /** Whether the radio is applying the window right now. */
  radioUp: boolean
}
