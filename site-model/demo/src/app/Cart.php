<?php

declare(strict_types=1);

namespace Northwind\Shop;

/**
 * A visitor's shopping cart, kept in the session.
 */
final class Cart
{
    /** @var array<string, int> quantity by SKU */
    private array $items = [];

    public function add(string $sku, int $quantity = 1): void
    {
        if ($quantity < 1) {
            throw new \InvalidArgumentException('Quantity must be positive');
        }
        $this->items[$sku] = ($this->items[$sku] ?? 0) + $quantity;
    }

    public function remove(string $sku): void
    {
        unset($this->items[$sku]);
    }

    /** Total in cents, given prices in cents by SKU. */
    public function total(array $prices): int
    {
        $total = 0;
        foreach ($this->items as $sku => $quantity) {
            $total += ($prices[$sku] ?? 0) * $quantity;
        }
        return $total;
    }

    public function freeShipping(array $prices, int $thresholdCents = 10000): bool
    {
        return $this->total($prices) >= $thresholdCents;
    }
}
