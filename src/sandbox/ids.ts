import { randomBytes, randomInt, randomUUID } from "node:crypto"

export const HEX = "0123456789abcdef"

export function randomFrom(alphabet: string, length: number): string {
  let text = ""
  for (let i = 0; i < length; i++) {
    text += alphabet[randomInt(alphabet.length)]
  }
  return text
}

export const newAccountId = () => randomFrom(HEX, 12)
export const newAccountSecret = () => randomBytes(16).toString("hex")
/** Shift ids are short hex strings on the real service; they are sensitive (spec 1), so never guessable. */
export const newShiftId = () => randomFrom(HEX, 20)
export const newUuid = () => randomUUID()
