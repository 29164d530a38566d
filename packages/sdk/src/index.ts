export { nextTimestamp, type SignedHeaders, type SignInput, signRequest } from "./signing.ts";
