import { randomInt } from "node:crypto"
import { NETWORKS, type AddressFormat } from "./catalogue-data"
import { HEX, randomFrom } from "./ids"

// What addresses, memos and transaction hashes look like on each network: a format check strict
// enough to catch a wrong-network address (an EVM address on Bitcoin), not a checksum verification.

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
const BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const B58 = "[1-9A-HJ-NP-Za-km-z]"
const B32 = "[02-9ac-hj-np-z]"

type Format = { pattern: RegExp; generate: () => string }

const format = (pattern: string | RegExp, generate: () => string): Format => ({
  pattern: typeof pattern === "string" ? new RegExp(pattern) : pattern,
  generate,
})

const FORMATS: Record<AddressFormat, Format> = {
  evm: format(/^0x[0-9a-fA-F]{40}$/, () => "0x" + randomFrom(HEX, 40)),
  hex64: format(/^0x[0-9a-fA-F]{64}$/, () => "0x" + randomFrom(HEX, 64)),
  bitcoin: format(`^(bc1${B32}{11,71}|[13]${B58}{25,34})$`, () => "bc1q" + randomFrom(BECH32, 38)),
  litecoin: format(`^(ltc1${B32}{11,71}|[LM3]${B58}{26,33})$`, () => "ltc1q" + randomFrom(BECH32, 38)),
  dogecoin: format(`^[DA9]${B58}{25,33}$`, () => "D" + randomFrom(BASE58, 33)),
  dash: format(`^X${B58}{33}$`, () => "X" + randomFrom(BASE58, 33)),
  bitcoincash: format(`^(bitcoincash:)?[qp]${B32}{41}$`, () => "bitcoincash:q" + randomFrom(BECH32, 41)),
  zcash: format(`^t1${B58}{33}$`, () => "t1" + randomFrom(BASE58, 33)),
  tron: format(`^T${B58}{33}$`, () => "T" + randomFrom(BASE58, 33)),
  solana: format(`^${B58}{32,44}$`, () => randomFrom(BASE58, 44)),
  ripple: format(`^r${B58}{24,34}$`, () => "r" + randomFrom(BASE58, 33)),
  stellar: format(/^G[A-Z2-7]{55}$/, () => "G" + randomFrom(BASE32, 55)),
  cosmos: format(`^cosmos1${B32}{38}$`, () => "cosmos1" + randomFrom(BECH32, 38)),
  ton: format(/^(EQ|UQ)[A-Za-z0-9_-]{46}$/, () => "UQ" + randomFrom(BASE64URL, 46)),
  bnb: format(`^bnb1${B32}{38}$`, () => "bnb1" + randomFrom(BECH32, 38)),
  hedera: format(/^0\.0\.\d{1,10}$/, () => `0.0.${randomInt(1_000_000, 9_999_999)}`),
  monero: format(`^[48]${B58}{94}$`, () => "4" + randomFrom(BASE58, 94)),
  cardano: format(`^addr1${B32}{50,110}$`, () => "addr1q" + randomFrom(BECH32, 97)),
  polkadot: format(`^1${B58}{46,47}$`, () => "1" + randomFrom(BASE58, 47)),
  near: format(/^([0-9a-f]{64}|[a-z0-9_-]+(\.[a-z0-9_-]+)*\.near)$/, () => randomFrom(HEX, 64)),
  algorand: format(/^[A-Z2-7]{58}$/, () => randomFrom(BASE32, 58)),
}

/** Checks the address format of a catalogue network; an unknown network only needs a non-empty address. */
export function isValidAddress(network: string, address: string): boolean {
  const data = NETWORKS[network]
  return data ? FORMATS[data.addressFormat].pattern.test(address) : address.trim().length > 0
}

export function newDepositAddress(network: string): string {
  return FORMATS[NETWORKS[network].addressFormat].generate()
}

const MAX_NUMERIC_MEMO = 4_294_967_295 // XRP destination tags are unsigned 32-bit integers

export function isValidMemo(network: string, memo: string): boolean {
  if (NETWORKS[network]?.memo === "numeric") {
    return /^\d{1,10}$/.test(memo) && Number(memo) <= MAX_NUMERIC_MEMO
  }
  return memo.trim().length > 0 && memo.length <= 64
}

/** A numeric memo is valid on every memo network. */
export function newDepositMemo(): string {
  return String(randomInt(100_000_000, 999_999_999))
}

export function newTransactionHash(network: string): string {
  const addressFormat = NETWORKS[network]?.addressFormat
  const hash = randomFrom(HEX, 64)
  return addressFormat === "evm" || addressFormat === "hex64" ? "0x" + hash : hash
}
