"use client"
// <CryptoSwapCheckout>: the custom element for React (18 and 19) and Next.js. Attributes from props, its
// events to callbacks; written without JSX so that it needs no build step either.
import { createElement, useEffect, useRef, version } from "react"
import { EVENTS, TAG } from "./index.mjs"

/** React 18 hands `className` to a custom element as an attribute of that name; React 19 makes it `class`. */
const CLASS_PROP = Number(version.split(".")[0]) >= 19 ? "className" : "class"

const CALLBACKS = { onUpdate: EVENTS.update, onOrderPlaced: EVENTS.orderPlaced, onPaid: EVENTS.paid }

export function CryptoSwapCheckout({ backendUrl, publishableKey, cartId, locale, providerId, className, style, ...callbacks }) {
  const ref = useRef(null)
  // The latest callbacks, without listening again on every render.
  const latest = useRef(callbacks)
  latest.current = callbacks
  useEffect(() => {
    const element = ref.current
    const listeners = Object.entries(CALLBACKS).map(([prop, type]) => {
      const listener = (event) => latest.current[prop]?.(event.detail)
      element.addEventListener(type, listener)
      return () => element.removeEventListener(type, listener)
    })
    return () => listeners.forEach((remove) => remove())
  }, [])
  return createElement(TAG, {
    ref,
    "backend-url": backendUrl,
    "publishable-key": publishableKey,
    "cart-id": cartId,
    locale,
    "provider-id": providerId,
    [CLASS_PROP]: className,
    style,
  })
}
