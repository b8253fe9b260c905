export const PRODUCT_NAME = "Heartline";

/** SPEC.md §1: the page title is the page name followed by the product name. */
export const pageTitle = (name: string) => `${name} - ${PRODUCT_NAME}`;

export const titleMeta = (name: string) => [{ title: pageTitle(name) }];
