import BigNumberJS from "bignumber.js"
import { COINS, NETWORKS } from "../../sandbox/catalogue-data"
import { chainNetwork } from "../chain-networks"
import { depositToken } from "../deposit-token"
import { walletLink, type WalletLinkInput } from "../payment-uri"
import { paymentView } from "../shift/payment-view"
import type { Coin } from "../swap-service"

// Wallet links checked against each standard's own examples (EIP-681, Solana Pay, BIP-21), then
// against every coin and network of the sandbox's catalogue, which mirrors the real listing's rules.

const link = (input: Partial<WalletLinkInput> & Pick<WalletLinkInput, "coin" | "network" | "address">) =>
  walletLink({ amount: null, memo: null, token: null, ...input })

/** An EIP-681 URL's parts, numbers compared by value: the EIP writes `2.014e18`, we write the integer. */
function eip681(url: string) {
  const match = /^ethereum:(?:pay-)?(0x[0-9a-fA-F]{40})(?:@(\d+))?(?:\/(\w+))?(?:\?(.*))?$/.exec(url)
  if (!match) throw new Error(`not an EIP-681 URL: ${url}`)
  const [, target, chainId, fn, query] = match
  const params = Object.fromEntries(
    [...new URLSearchParams(query ?? "")].map(([key, value]) => [key, /^[\d.eE+-]+$/.test(value) ? new BigNumberJS(value).toFixed() : value])
  )
  return { target, chainId: chainId ?? null, fn: fn ?? null, params }
}

describe("EIP-681 (EVM coins and ERC-20 tokens)", () => {
  it("writes the EIP's ether payment example, with the chain id and the value as a plain integer", () => {
    // EIP-681: "ethereum:0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359?value=2.014e18" (2.014 ETH).
    const url = link({ coin: "ETH", network: "ethereum", address: "0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359", amount: "2.014" })
    expect(url).toBe("ethereum:0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359@1?value=2014000000000000000")
    expect(eip681(url!)).toEqual({ ...eip681("ethereum:0xfb6916095ca1df60bb79Ce92ce3ea74c37c5d359?value=2.014e18"), chainId: "1" })
  })

  it("writes the EIP's ERC-20 transfer example", () => {
    // EIP-681: "ethereum:0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7/transfer?address=0x8e23ee67d1332ad560396262c48ffbb01f93d052&uint256=1"
    const url = link({
      coin: "UNICORN",
      network: "ethereum",
      address: "0x8e23ee67d1332ad560396262c48ffbb01f93d052",
      amount: "1",
      token: { contractAddress: "0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7", decimals: 0 },
    })
    expect(url).toBe(
      "ethereum:0x89205a3a3b2a69de6dbf7f01ed13b2108b2c43e7@1/transfer?address=0x8e23ee67d1332ad560396262c48ffbb01f93d052&uint256=1"
    )
  })

  it("gives the amount in the token's base units, exactly, and never in scientific notation", () => {
    const recipient = "0x1111111111111111111111111111111111111111"
    const usdtBsc = { contractAddress: "0x55d398326f99059ff775485246999027b3197955", decimals: 18 }
    expect(link({ coin: "USDT", network: "bsc", address: recipient, amount: "49.990000000000000001", token: usdtBsc })).toBe(
      `ethereum:${usdtBsc.contractAddress}@56/transfer?address=${recipient}&uint256=49990000000000000001`
    )
    expect(link({ coin: "ETH", network: "base", address: recipient, amount: "123456789.123456789123456789" })).toBe(
      `ethereum:${recipient}@8453?value=123456789123456789123456789`
    )
  })

  it("rounds an amount finer than the token's unit up, so the merchant never receives less", () => {
    const usdc = { contractAddress: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", decimals: 6 }
    const url = link({ coin: "USDC", network: "ethereum", address: "0x2222222222222222222222222222222222222222", amount: "10.0000001", token: usdc })
    expect(eip681(url!).params.uint256).toBe("10000001")
    // Already a whole number of units: untouched.
    expect(eip681(link({ coin: "ETH", network: "arbitrum", address: "0x2222222222222222222222222222222222222222", amount: "0.1" })!).params.value).toBe(
      "100000000000000000"
    )
  })

  it("names the chain of each EVM network, and the native coin of each", () => {
    const address = "0x3333333333333333333333333333333333333333"
    const natives: Array<[string, string, string]> = [
      ["ETH", "ethereum", "1"],
      ["ETH", "optimism", "10"],
      ["BNB", "bsc", "56"],
      ["ETC", "ethereumclassic", "61"],
      ["POL", "polygon", "137"],
      ["ETH", "zksync", "324"],
      ["ETH", "base", "8453"],
      ["ETH", "arbitrum", "42161"],
      ["AVAX", "avax", "43114"],
    ]
    for (const [coin, network, chainId] of natives) {
      expect(link({ coin, network, address, amount: "1" })).toBe(`ethereum:${address}@${chainId}?value=1000000000000000000`)
    }
  })
})

describe("Solana Pay (SOL and SPL tokens)", () => {
  const recipient = "mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN"

  it("writes the spec's transfer request for 1 SOL (without its label, message and memo)", () => {
    // Spec: "solana:mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN?amount=1&label=Michael&message=…&memo=OrderId12345"
    expect(link({ coin: "SOL", network: "solana", address: recipient, amount: "1" })).toBe(`solana:${recipient}?amount=1`)
  })

  it("writes the spec's transfer request for 0.01 USDC", () => {
    const usdc = { contractAddress: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", decimals: 6 }
    expect(link({ coin: "USDC", network: "solana", address: recipient, amount: "0.01", token: usdc })).toBe(
      "solana:mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN?amount=0.01&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
    )
  })

  it("leaves the amount to the wallet when there is none, as the spec's request without amount", () => {
    expect(link({ coin: "SOL", network: "solana", address: recipient })).toBe(`solana:${recipient}`)
  })

  it("never exceeds the mint's decimals (wallets reject that), rounding up, in decimal notation", () => {
    expect(link({ coin: "SOL", network: "solana", address: recipient, amount: "0.0000000001" })).toBe(`solana:${recipient}?amount=0.000000001`)
    expect(link({ coin: "SOL", network: "solana", address: recipient, amount: "0.00000001" })).toBe(`solana:${recipient}?amount=0.00000001`)
  })
})

describe("BIP-21 (bitcoin and the UTXO coins that follow it)", () => {
  const address = "175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W"

  it("writes BIP-21's examples (without their label and message)", () => {
    expect(link({ coin: "BTC", network: "bitcoin", address })).toBe(`bitcoin:${address}`)
    // BIP-21: "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=20.3&label=Luke-Jr"
    expect(link({ coin: "BTC", network: "bitcoin", address, amount: "20.3" })).toBe(`bitcoin:${address}?amount=20.3`)
    // BIP-21: "bitcoin:175tWpb8K1S7NmH4Zx6rewF9WQrcZv245W?amount=50&label=Luke-Jr&message=Donation%20for%20project%20xyz"
    expect(link({ coin: "BTC", network: "bitcoin", address, amount: "50" })).toBe(`bitcoin:${address}?amount=50`)
  })

  it("rounds beyond the satoshi up, and writes a cash address's scheme once", () => {
    expect(link({ coin: "BTC", network: "bitcoin", address, amount: "0.000000011" })).toBe(`bitcoin:${address}?amount=0.00000002`)
    const cash = "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a"
    expect(link({ coin: "BCH", network: "bitcoincash", address: cash, amount: "0.5" })).toBe(`${cash}?amount=0.5`)
  })

  it("uses each coin's own scheme", () => {
    for (const [coin, network] of [
      ["LTC", "litecoin"],
      ["DOGE", "dogecoin"],
      ["DASH", "dash"],
      ["ZEC", "zcash"],
    ]) {
      expect(link({ coin, network, address: "Xaddr", amount: "1.5" })).toBe(`${network}:Xaddr?amount=1.5`)
    }
  })
})

describe("where no link fits", () => {
  it("gives none for a memo, a network without a standard, or a token whose contract is unknown", () => {
    expect(link({ coin: "XRP", network: "ripple", address: "rAddr", amount: "10", memo: "12345" })).toBeNull()
    expect(link({ coin: "ETH", network: "ethereum", address: "0x4444444444444444444444444444444444444444", amount: "1", memo: "x" })).toBeNull()
    expect(link({ coin: "USDT", network: "tron", address: "TAddr", amount: "10" })).toBeNull()
    expect(link({ coin: "USDT", network: "ethereum", address: "0x4444444444444444444444444444444444444444", amount: "10" })).toBeNull()
    expect(link({ coin: "USDC", network: "bitcoin", address: "bc1q", amount: "10", token: { contractAddress: "x", decimals: 6 } })).toBeNull()
  })
})

describe("the catalogue's coins", () => {
  const listing = (): Coin[] =>
    COINS.map((coin) => ({
      coin: coin.coin,
      name: coin.name,
      networks: coin.networks,
      tokenDetails: coin.tokens ?? null,
      networksWithMemo: coin.networks.filter((network) => NETWORKS[network].memo),
      fixedOnly: false,
      variableOnly: false,
      depositVariableOnly: false,
      settleVariableOnly: false,
      depositOffline: false,
      settleOffline: false,
    }))
  const catalogue = { get: async () => listing() }
  const UTXO = new Set(["bitcoin", "litecoin", "dogecoin", "dash", "bitcoincash", "zcash"])

  it("knows the chain or scheme of every EVM and UTXO network, with the native coin's decimals", () => {
    for (const [network, data] of Object.entries(NETWORKS)) {
      if (data.addressFormat === "evm" || UTXO.has(data.addressFormat) || network === "solana") {
        const chain = chainNetwork(network)
        expect({ network, standard: chain?.standard }).toEqual({ network, standard: expect.any(String) })
        const native = COINS.find((coin) => coin.coin === chain!.nativeCoin)
        expect({ network, decimals: chain!.nativeDecimals }).toEqual({ network, decimals: native!.decimals })
      }
    }
  })

  it("links every coin on every network with a standard, and none on memo networks", async () => {
    const amount = "12.3456789"
    let linked = 0
    for (const coin of COINS) {
      for (const network of coin.networks) {
        const address = chainNetwork(network)?.standard === "eip681" ? `0x${"ab".repeat(20)}` : `${network}-deposit-address`
        const token = await depositToken(catalogue, coin.coin, network)
        const memo = NETWORKS[network].memo ? "123" : null
        const url = walletLink({ coin: coin.coin, network, address, amount, memo, token })
        const chain = chainNetwork(network)
        const where = `${coin.coin} on ${network}`
        if (!chain || memo) {
          expect({ where, url }).toEqual({ where, url: null })
          continue
        }
        linked += 1
        const decimals = coin.tokens?.[network]?.decimals ?? coin.decimals
        const units = new BigNumberJS(amount).shiftedBy(decimals).integerValue(BigNumberJS.ROUND_UP)
        // Decimal amounts: never less than due, by less than one base unit.
        const shown = (value: string) => {
          const due = new BigNumberJS(amount)
          expect(new BigNumberJS(value).gte(due)).toBe(true)
          expect(new BigNumberJS(value).minus(due).lt(new BigNumberJS(1).shiftedBy(-decimals))).toBe(true)
        }
        if (chain.standard === "eip681") {
          const parts = eip681(url!)
          expect(parts.chainId).toBe(String(chain.chainId))
          if (coin.tokens?.[network]) {
            expect(parts).toEqual({ target: coin.tokens[network].contractAddress, chainId: parts.chainId, fn: "transfer", params: { address, uint256: units.toFixed() } })
          } else {
            expect(parts).toEqual({ target: address, chainId: parts.chainId, fn: null, params: { value: units.toFixed() } })
          }
        } else if (chain.standard === "solana-pay") {
          const [path, query] = url!.split("?")
          expect(path).toBe(`solana:${address}`)
          const params = new URLSearchParams(query)
          shown(params.get("amount")!)
          expect(params.get("spl-token")).toBe(coin.tokens?.[network]?.contractAddress ?? null)
        } else {
          expect(url!.startsWith(`${chain.scheme}:${address}?amount=`)).toBe(true)
          shown(new URLSearchParams(url!.split("?")[1]).get("amount")!)
        }
      }
    }
    expect(linked).toBeGreaterThan(30)
  })

  it("reads a token's contract from the listing only when the coin is not the network's own, and not at all when it fails", async () => {
    let reads = 0
    const counting = { get: async () => (reads++, listing()) }
    expect(await depositToken(counting, "ETH", "arbitrum")).toBeNull()
    expect(await depositToken(counting, "XRP", "ripple")).toBeNull()
    expect(reads).toBe(0)
    expect(await depositToken(counting, "USDT", "bsc")).toEqual({ contractAddress: "0x55d398326f99059ff775485246999027b3197955", decimals: 18 })
    expect(await depositToken({ get: () => Promise.reject(new Error("down")) }, "USDT", "bsc")).toBeNull()
  })

  it("puts the link in the payment view, its QR code and text alternative", async () => {
    const row = {
      status: "waiting",
      issue: null,
      type: "fixed",
      deposit_coin: "USDT",
      deposit_network: "bsc",
      deposit_address: "0x5555555555555555555555555555555555555555",
      deposit_memo: null,
      deposit_amount: "50.12",
      deposit_min: null,
      deposit_max: null,
      settle_coin: "USDC",
      settle_network: "ethereum",
      settle_amount: "49.99",
      rate: "0.997",
      expires_at: null,
      deposit_hash: null,
      settle_hash: null,
      refund_address: null,
      order_id: null,
      flags: null,
    }
    const view = await paymentView(row, "awaiting_deposit", catalogue)
    const expected = "ethereum:0x55d398326f99059ff775485246999027b3197955@56/transfer?address=0x5555555555555555555555555555555555555555&uint256=50120000000000000000"
    expect(view).toMatchObject({ wallet_uri: expected, payment_uri: expected })
    expect(view.qr_svg).toMatch(/^<svg/)
    expect(view.qr_alt).toBe("QR code to pay 50.12 USDT on bsc to the address 0x5555555555555555555555555555555555555555.")

    // A memo network: the QR code holds the address alone and there is no wallet link.
    const xrp = await paymentView({ ...row, deposit_coin: "XRP", deposit_network: "ripple", deposit_address: "rXrp", deposit_memo: "42" }, "awaiting_deposit", catalogue)
    expect(xrp).toMatchObject({ wallet_uri: null, payment_uri: "rXrp", qr_alt: "QR code to pay 50.12 XRP on ripple to the address rXrp, with the memo 42." })

    // Variable rate: the link without an amount, and the range in the text alternative.
    const variable = await paymentView({ ...row, type: "variable", deposit_min: "10", deposit_max: "1000" }, "awaiting_deposit", catalogue)
    expect(variable.wallet_uri).toBe("ethereum:0x55d398326f99059ff775485246999027b3197955@56/transfer?address=0x5555555555555555555555555555555555555555")
    expect(variable.qr_alt).toContain("between 10 and 1000 USDT")

    // Once the deposit arrived nothing is left to pay: no link, no QR code.
    expect(await paymentView(row, "deposit_detected", catalogue)).toMatchObject({ wallet_uri: null, payment_uri: null, qr_svg: null, qr_alt: null })
  })
})
