"""Configuration: TOML files -> validated, frozen dataclasses.

:mod:`ssdco.spec.schema` holds the frozen dataclasses, :mod:`ssdco.spec.load` reads and checks TOML into them;
this package exports both, so ``from ssdco.spec import Config, load_config`` is the one import a caller needs.
"""

from ssdco.spec.load import (
    ADDRESS_PATTERNS,
    EXCLUSIVE_FIELDS,
    JESD219_SIZE_PROBS,
    JESD219_SIZES_KIB,
    MAX_REQUEST_KIB,
    MAX_TRANSACTIONS,
    MAX_WRITE_BUFFER_KIB,
    MIN_ARRIVAL_IOPS,
    PRESET_FIELDS,
    WORKLOAD_PRESETS,
    apply_overrides,
    config_from_dict,
    full_mapping_table_gib,
    list_controller_presets,
    load_config,
    load_controller,
    parse_controller,
    parse_override,
)
from ssdco.spec.schema import (
    CACHE_GRANULARITIES,
    FTL_MAPPINGS,
    GC_POLICIES,
    GIB,
    KIB,
    MAPPING_ENTRY_BYTES,
    MODULES,
    PCIE_ENCODING,
    PCIE_GT_PER_S,
    PER_REQUEST_MODULES,
    SCHEMA_VERSION,
    AcceleratorSpec,
    Budgets,
    Config,
    Controller,
    CoreGroup,
    CoreSpec,
    DramSpec,
    FtlSpec,
    HostSpec,
    ModuleSpec,
    NandSpec,
    Variability,
    Workload,
    check_controller,
)

__all__ = [
    'ADDRESS_PATTERNS', 'AcceleratorSpec', 'Budgets', 'CACHE_GRANULARITIES', 'Config', 'Controller',
    'CoreGroup', 'CoreSpec', 'DramSpec', 'EXCLUSIVE_FIELDS', 'FTL_MAPPINGS', 'FtlSpec', 'GC_POLICIES', 'GIB',
    'HostSpec', 'JESD219_SIZES_KIB', 'JESD219_SIZE_PROBS', 'KIB', 'MAPPING_ENTRY_BYTES', 'MAX_REQUEST_KIB',
    'MAX_TRANSACTIONS', 'MAX_WRITE_BUFFER_KIB', 'MIN_ARRIVAL_IOPS', 'MODULES', 'ModuleSpec', 'NandSpec',
    'PCIE_ENCODING', 'PCIE_GT_PER_S', 'PER_REQUEST_MODULES', 'PRESET_FIELDS', 'SCHEMA_VERSION', 'Variability',
    'WORKLOAD_PRESETS', 'Workload', 'apply_overrides', 'check_controller', 'config_from_dict',
    'full_mapping_table_gib', 'list_controller_presets', 'load_config', 'load_controller', 'parse_controller',
    'parse_override'
]
