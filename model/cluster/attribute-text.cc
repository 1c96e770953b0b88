/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "attribute-text.h"

#include "ns3/log.h"
#include "ns3/object.h"
#include "ns3/pointer.h"
#include "ns3/type-id.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AttributeText");

std::string
AttributeText::ToString(const AttributeValue& value, Ptr<const AttributeChecker> checker)
{
    return ToString(value, checker, 0);
}

std::string
AttributeText::Describe(const ObjectBase& object)
{
    return Describe(object, 0);
}

std::map<std::string, std::string>
AttributeText::GetAttributes(const ObjectBase& object)
{
    return GetAttributes(object, 0);
}

std::string
AttributeText::ToString(const AttributeValue& value,
                        Ptr<const AttributeChecker> checker,
                        uint32_t depth)
{
    const auto* pointer = dynamic_cast<const PointerValue*>(&value);
    if (!pointer)
    {
        return value.SerializeToString(checker);
    }
    Ptr<Object> target = pointer->GetObject();
    if (!target)
    {
        return "none";
    }
    if (depth >= MAX_DEPTH)
    {
        NS_LOG_LOGIC("pointers followed " << depth
                                          << " deep: " << target->GetInstanceTypeId().GetName()
                                          << " written without its attributes");
        return target->GetInstanceTypeId().GetName();
    }
    return Describe(*target, depth + 1);
}

std::string
AttributeText::Describe(const ObjectBase& object, uint32_t depth)
{
    std::string text = object.GetInstanceTypeId().GetName() + "[";
    bool first = true;
    for (const auto& [name, value] : GetAttributes(object, depth))
    {
        text += (first ? "" : "|") + name + "=" + value;
        first = false;
    }
    return text + "]";
}

std::map<std::string, std::string>
AttributeText::GetAttributes(const ObjectBase& object, uint32_t depth)
{
    std::map<std::string, std::string> attributes;
    for (TypeId tid = object.GetInstanceTypeId();; tid = tid.GetParent())
    {
        for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation info = tid.GetAttribute(i);
            // A deprecated alias repeats the attribute it stands for.
            if (!(info.flags & TypeId::ATTR_GET) || !info.accessor->HasGetter() ||
                info.supportLevel != TypeId::SupportLevel::SUPPORTED)
            {
                continue;
            }
            Ptr<AttributeValue> value = info.checker->Create();
            info.accessor->Get(&object, *value);
            attributes[info.name] = ToString(*value, info.checker, depth);
        }
        if (tid == tid.GetParent())
        {
            break; // the root
        }
    }
    return attributes;
}

} // namespace ns3
