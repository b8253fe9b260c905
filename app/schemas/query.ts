import { z } from "./zod";

/** The highest page number any list accepts (a bound OFFSET stays a small integer). */
export const MAX_PAGE = 10_000;

/**
 * A page number from a query string: a whole number from 1 to MAX_PAGE, anything else (`1e300`,
 * `-1`, `abc`, `1.5`) is page 1. Lists are read with OFFSET (page - 1) × per_page, so an
 * unchecked number would reach D1 as a value it cannot bind.
 */
export const pageParam = z.coerce.number().int().min(1).max(MAX_PAGE).catch(1);

/** A page size from a query string: 1 to `max`, anything else is `fallback`. */
export const perPageParam = (fallback: number, max = 50) =>
  z.coerce.number().int().min(1).max(max).catch(fallback);

/** `?page=&per_page=` of a list (unknown parameters are ignored). */
export const pageQuery = (perPage = 20, maxPerPage = 50) =>
  z.object({ page: pageParam, per_page: perPageParam(perPage, maxPerPage) });

/** The page number of a request's query string (for loaders that read only `page`). */
export const pageOf = (request: Request) =>
  pageParam.parse(new URL(request.url).searchParams.get("page") ?? 1);
