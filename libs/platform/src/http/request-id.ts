/** A client's X-Request-Id is reused only if it matches; otherwise the server makes one. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
